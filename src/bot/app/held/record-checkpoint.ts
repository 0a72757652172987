import { runKey } from "../../../policy/ids";
import { recordStateDelta } from "../../../store/approvals/checkpoint-record";
import type { StateDelta } from "../../../store/approvals/runs-checkpoint";
import type { KnownAgent } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { checkpointsOf } from "./receive-event";

export type CheckpointResult =
  | { kind: "recorded"; run: { id: string; checkpoint: string; vars: Record<string, unknown> } }
  | { kind: "invalid_transition"; why: string };

/**
 * The agent's named checkpoint, recorded without an event: the same state delta an event's `stateDelta`
 * carries (the run moves one step along the agent's declared sequence, its variables merged). Recording is
 * not outbound work, so a pause does not hold it, as it does not hold an event's delta.
 */
export async function recordCheckpoint(
  ctx: HandlerContext,
  agent: KnownAgent,
  delta: StateDelta,
): Promise<CheckpointResult> {
  // The run id is scoped by the tenant, so a delta can only ever name (or create) a run of this tenant.
  const key = runKey(agent.tenantId, delta.runId);
  const applied = await recordStateDelta(
    ctx.store.db,
    agent,
    checkpointsOf(agent),
    { ...delta, runId: key },
    ctx.now(),
  );
  if (!applied.ok) return { kind: "invalid_transition", why: applied.why };
  ctx.log.info({ run: key, checkpoint: applied.checkpoint }, "checkpoint recorded");
  ctx.events.emit("run.changed", key);
  return { kind: "recorded", run: { id: delta.runId, checkpoint: applied.checkpoint, vars: applied.vars } };
}
