import type { GateVerdict } from "../../../policy/gate";
import { agentId as agentIdOf } from "../../../policy/ids";
import { checkGate } from "../../../store/control/gate";
import type { HandlerContext } from "../context";

export type HoldReason = Extract<GateVerdict, { held: true }>["because"];

/**
 * Why the agent's outbound work is held right now (its pause, its tenant's, a maintenance window, or a record
 * that cannot be read), or null when it goes out: the gate every worker reads, asked for the words of an
 * answer ("the action is held", not "queued").
 */
export async function outboundHeld(
  ctx: HandlerContext,
  tenantId: string,
  agentName: string,
): Promise<HoldReason | null> {
  const gate = await checkGate(ctx.store, agentIdOf(tenantId, agentName), tenantId);
  return gate.held ? gate.because : null;
}
