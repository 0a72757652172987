import type { Logger } from "pino";
import type { Store } from "../../store/client";
import { pumpEvents } from "../../store/inbox-pump";
import { ReleaseRaceError, releaseNextBatch } from "../../store/releases";

export interface ReleaseDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  /** New deliveries were planned: wake the delivery loop. */
  planned(): void;
  /** Called after each committed batch; the test-only crash hook stops the process here. */
  afterBatch?(releaseId: string): Promise<void>;
}

/**
 * Works a release to the end in batches (design.md section 10). Every batch commits on its own, so a
 * process killed half-way leaves an OPEN release whose remaining HELD rows the next run picks up; rows
 * already RELEASED are never looked at again.
 */
export async function runRelease(deps: ReleaseDeps, releaseId: string): Promise<{ released: number; skipped: number }> {
  const db = deps.store.db;
  const gated = new Set<string>();
  const totals = { released: 0, skipped: 0 };
  for (;;) {
    let outcome: Awaited<ReturnType<typeof releaseNextBatch>>;
    try {
      outcome = await releaseNextBatch(db, releaseId, gated);
    } catch (error) {
      if (error instanceof ReleaseRaceError) continue; // the other release took them; look again
      throw error;
    }
    if (outcome.kind === "gated") {
      gated.add(outcome.agentId);
      continue;
    }
    if (outcome.kind === "finished") {
      for (const agentId of outcome.eventAgents) if (await pumpEvents(db, agentId, deps.now())) deps.planned();
      deps.log.info({ releaseId, ...totals, stillPaused: gated.size }, "release finished");
      return totals;
    }
    totals.released += outcome.released;
    totals.skipped += outcome.skipped;
    if (outcome.planned) deps.planned();
    await deps.afterBatch?.(releaseId);
  }
}
