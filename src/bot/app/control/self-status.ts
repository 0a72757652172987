import { checkGate } from "../../../store/control/gate";
import type { KnownAgent } from "../../../store/directory/directory";
import type { HeldCounts } from "../../../store/held/counts";
import type { HandlerContext } from "../context";
import { agentStatus } from "./status";

/** What an agent asks before it acts: the state that holds it, whether its outbound work is held now, its counts. */
export interface SelfStatus {
  agent: string;
  /** The effective state: the agent's own record, or the tenant-wide hold when that holds it (`by`). */
  state: string;
  holdLevel: string;
  by: "agent" | "tenant";
  reason: string | null;
  setBy: string | null;
  until: string | null;
  /** The gate's answer, the one every worker reads before outbound work (fails closed: unreadable is held). */
  held: boolean;
  heldBecause: "agent_paused" | "tenant_paused" | "maintenance" | "unreadable" | null;
  counts: HeldCounts;
}

export async function selfStatus(ctx: HandlerContext, agent: KnownAgent): Promise<SelfStatus> {
  const [status, gate] = await Promise.all([agentStatus(ctx, agent), checkGate(ctx.store, agent.id, agent.tenantId)]);
  const { effective } = status.control;
  const record = status.tenantHold ?? status.control;
  return {
    agent: agent.name,
    state: effective.state,
    holdLevel: effective.holdLevel,
    by: effective.by,
    reason: record.reason,
    setBy: record.setBy,
    until: record.until,
    held: gate.held,
    heldBecause: gate.held ? gate.because : null,
    counts: status.held,
  };
}
