import type { ControlRecord, ControlState, HoldLevel } from "./control";
import { isPausedState } from "./control";

/** What actually holds an agent: its own record, or its tenant's tenant-wide hold. */
export interface EffectiveControl {
  state: ControlState;
  holdLevel: HoldLevel;
  by: "agent" | "tenant";
}

/**
 * The state the agent's outbound work is in (the same rule as the gate, policy/gate.ts): a tenant that is
 * not running holds every agent of it, whatever the agent's own record says, so then it is `by: "tenant"`
 * (its hold is an admin's, the highest). Otherwise the agent's own record is the whole story. A tenant
 * record that is missing reads as running here: the gate fails closed on it, but there is nothing to show.
 */
export function effectiveControl(agent: ControlRecord, tenant: ControlRecord | null): EffectiveControl {
  if (tenant && isPausedState(tenant.state)) return { state: tenant.state, holdLevel: tenant.holdLevel, by: "tenant" };
  return { state: agent.state, holdLevel: agent.holdLevel, by: "agent" };
}
