import { fingerprint } from "../../../policy/fingerprint";
import { runKey, runName } from "../../../policy/ids";
import type { StateDelta } from "../../../store/approvals/runs-checkpoint";
import { checkGate } from "../../../store/control/gate";
import type { KnownAgent } from "../../../store/directory/directory";
import { type ReceiveResult, receiveEvent } from "../../../store/held/inbox";
import type { HandlerContext } from "../context";

export interface EventInput {
  eventId: string;
  type: string;
  payload: unknown;
  stateDelta?: StateDelta;
}

/** The checkpoint sequence declared for the agent in the directory (`checkpoints: [...]`). */
export const checkpointsOf = (agent: KnownAgent): string[] => agent.settings.checkpoints;

/**
 * Stores an awaited event (design.md section 4). Held while the agent or its tenant is paused; otherwise it
 * joins the agent's ordered event queue at once. The fingerprint covers everything the sender sent, so the
 * same id with any changed field is a conflict.
 */
export async function acceptEvent(ctx: HandlerContext, agent: KnownAgent, input: EventInput): Promise<ReceiveResult> {
  const { db } = ctx.store;
  const held = (await checkGate(ctx.store, agent.id, agent.tenantId)).held;
  const result = await receiveEvent(db, {
    agent,
    checkpoints: checkpointsOf(agent),
    eventId: input.eventId,
    type: input.type,
    payload: input.payload,
    // The run id is scoped by the tenant, so a delta can only ever name (or create) a run of this tenant.
    stateDelta: input.stateDelta && { ...input.stateDelta, runId: runKey(agent.tenantId, input.stateDelta.runId) },
    fingerprint: fingerprint({
      type: input.type,
      payload: input.payload ?? null,
      stateDelta: input.stateDelta ?? null,
    }),
    held,
    now: ctx.now(),
  });
  if (result.kind === "accepted" && !held) ctx.events.emit("inbox.received", agent.id);
  if (result.kind === "duplicate") ctx.metrics?.duplicateSuppressed("inbound_event");
  if ((result.kind === "accepted" || result.kind === "duplicate") && result.receipt.run) {
    const run = result.receipt.run;
    return { ...result, receipt: { ...result.receipt, run: { ...run, id: runName(agent.tenantId, run.id) } } };
  }
  return result;
}
