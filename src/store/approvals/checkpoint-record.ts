import type { Db } from "../connection/client";
import { applyStateDelta, type DeltaResult, type StateDelta } from "./runs-checkpoint";

/**
 * Applies a state delta on its own, in its own transaction (an inbound event's delta is applied with the event's
 * row instead, held/inbox.ts). Two racing first deltas of one run: the second insert loses and is told the run
 * moved, as a lost conditional update is.
 */
export async function recordStateDelta(
  db: Db,
  agent: { id: string; tenantId: string },
  sequence: readonly string[],
  delta: StateDelta,
  now: Date,
): Promise<DeltaResult> {
  try {
    return await db.$transaction((tx) => applyStateDelta(tx, agent, sequence, delta, now));
  } catch (error) {
    if ((error as { code?: string }).code === "P2002")
      return { ok: false, code: "invalid_transition", why: "the run moved meanwhile" };
    throw error;
  }
}
