import { decideCheckpoint } from "../../policy/checkpoint";
import type { Tx } from "../connection/client";

/** A change to a run's named checkpoint and state variables, carried by an inbound event or the API. */
export interface StateDelta {
  runId: string;
  checkpoint: string;
  set?: Record<string, unknown>;
}

export type DeltaResult =
  | { ok: true; runId: string; checkpoint: string; vars: Record<string, unknown> }
  | { ok: false; code: "invalid_transition"; why: string };

/**
 * Applies the delta inside the caller's transaction (with the inbox row, when an event carries it). A run
 * is created by its first delta, which must name the first checkpoint; the move itself is a conditional
 * update on the checkpoint read, so two racing deltas cannot both advance the run.
 */
export async function applyStateDelta(
  tx: Tx,
  agent: { id: string; tenantId: string },
  sequence: readonly string[],
  delta: StateDelta,
  now: Date,
): Promise<DeltaResult> {
  const run = await tx.run.findUnique({ where: { id: delta.runId } });
  if (run && run.agentId !== agent.id) {
    return { ok: false, code: "invalid_transition", why: "the run belongs to another agent" };
  }
  const verdict = decideCheckpoint(sequence, run?.checkpoint ?? null, delta.checkpoint);
  if (!verdict.ok) return verdict;
  const vars = { ...(run ? (JSON.parse(run.vars) as Record<string, unknown>) : {}), ...(delta.set ?? {}) };
  const last = delta.checkpoint === sequence[sequence.length - 1];
  if (!run) {
    await tx.run.create({
      data: {
        id: delta.runId,
        tenantId: agent.tenantId,
        agentId: agent.id,
        state: last ? "completed" : "active",
        checkpoint: delta.checkpoint,
        vars: JSON.stringify(vars),
        createdAt: now,
      },
    });
  } else {
    const moved = await tx.run.updateMany({
      where: { id: run.id, checkpoint: run.checkpoint },
      data: { checkpoint: delta.checkpoint, vars: JSON.stringify(vars), ...(last ? { state: "completed" } : {}) },
    });
    if (moved.count !== 1) return { ok: false, code: "invalid_transition", why: "the run moved meanwhile" };
  }
  return { ok: true, runId: delta.runId, checkpoint: delta.checkpoint, vars };
}

export class InvalidTransition extends Error {
  readonly code = "invalid_transition";
}
