import type { Logger } from "pino";
import type { Store } from "../../store/client";
import { pumpEvents } from "../../store/inbox-pump";
import { releaseCounts } from "../../store/release-counts";
import { ReleaseRaceError, releaseNextBatch } from "../../store/releases";

export interface ReleaseDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  /** New deliveries were planned: wake the delivery loop. */
  planned(): void;
  /** Called after each committed batch; the test-only crash hook stops the process here. */
  afterBatch?(releaseId: string): Promise<void>;
  /** At most this many triggers per step; default 100. */
  triggersPerStep?: number;
}

/**
 * Works a release to the end in batches (design.md section 10). Every batch commits on its own, so a
 * process killed half-way leaves an OPEN release whose remaining HELD rows the next run picks up; rows
 * already RELEASED are never looked at again.
 */
export async function runRelease(deps: ReleaseDeps, releaseId: string): Promise<{ released: number; skipped: number }> {
  const gated = new Set<string>();
  const totals = { released: 0, skipped: 0 };
  for (;;) {
    let outcome: Awaited<ReturnType<typeof releaseNextBatch>>;
    try {
      outcome = await releaseNextBatch(deps.store, releaseId, gated, deps.triggersPerStep ?? 100);
    } catch (error) {
      if (error instanceof ReleaseRaceError) continue; // the other release took them; look again
      throw error;
    }
    if (outcome.kind === "finished") {
      for (const agentId of outcome.eventAgents) {
        if (await pumpEvents(deps.store.db, agentId, deps.now())) deps.planned();
      }
      // Every kind it let go, not only the trigger occurrences of this run's own batches.
      const counts = await releaseCounts(deps.store.db, releaseId).catch(() => null);
      deps.log.info({ releaseId, ...totals, ...counts, stillPaused: gated.size }, "release finished");
      return totals;
    }
    for (const agentId of outcome.gated) gated.add(agentId);
    totals.released += outcome.released;
    totals.skipped += outcome.skipped;
    if (outcome.planned) deps.planned();
    await deps.afterBatch?.(releaseId);
  }
}
