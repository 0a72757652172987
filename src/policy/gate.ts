import type { ControlRecord } from "./control";
import { isPausedState } from "./control";

export type GateVerdict =
  | { held: false }
  | { held: true; because: "agent_paused" | "tenant_paused" | "maintenance" | "unreadable" };

/**
 * Outbound work may start only when both the agent's and the tenant's records were read and both are
 * RUNNING. A record that is missing or could not be read holds the work (fail closed).
 */
export function gateVerdict(
  agent: ControlRecord | undefined,
  tenant: ControlRecord | undefined,
  /** The deployment-wide maintenance hold: a record that exists only while a window is or was open. */
  deployment?: ControlRecord,
): GateVerdict {
  if (!agent || !tenant) return { held: true, because: "unreadable" };
  if (deployment && isPausedState(deployment.state)) return { held: true, because: "maintenance" };
  if (isPausedState(tenant.state)) return { held: true, because: "tenant_paused" };
  if (isPausedState(agent.state)) return { held: true, because: "agent_paused" };
  return { held: false };
}
