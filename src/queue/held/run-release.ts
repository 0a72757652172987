import type { Logger } from "pino";
import { releaseLeaseName } from "../../policy/ids";
import type { MetricsSink } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import { dropLease, takeLease } from "../../store/connection/leases";
import { pumpEvents } from "../../store/held/inbox-pump";
import { releaseCounts } from "../../store/held/release-counts";
import { ReleaseRaceError, releaseNextBatch } from "../../store/held/releases";

export interface ReleaseDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  /** This process, as the owner of the leases it takes. */
  instanceId: string;
  /** New deliveries were planned: wake the delivery loop. */
  planned(): void;
  /** Called after each committed batch; the test-only crash point stops the process here. */
  afterBatch?(releaseId: string): Promise<void>;
  /** Counts finished releases and their duration. */
  metrics?: MetricsSink;
  /** At most this many triggers per step; default `DEFAULT_RELEASE_BATCH`. */
  triggersPerStep?: number;
}

/** Triggers per release step by default (HOLDFAST_RELEASE_BATCH takes its default from here). */
export const DEFAULT_RELEASE_BATCH = 100;

/**
 * How long a release's lease lasts without a renewal. It is renewed before every step (a step takes well
 * under a second), so a process that dies mid-release leaves it for another within this, plus the
 * reconcile tick (1 s) that looks for open releases nobody holds.
 */
export const RELEASE_LEASE_MS = 5_000;

export type ReleaseRun = { released: number; skipped: number } | "held-elsewhere";

/**
 * Works a release to the end in batches (design.md section 10), holding the release's lease so that one
 * process at a time works it. Every batch commits on its own, so a process killed half-way leaves an OPEN
 * release whose remaining HELD rows the next holder picks up; rows already RELEASED are never looked at
 * again. Two holders at once (a renewal that came too late) would still plan nothing twice: each step's
 * marks are conditional and a step that finds its rows taken rolls back.
 */
export async function runRelease(deps: ReleaseDeps, releaseId: string): Promise<ReleaseRun> {
  const lease = releaseLeaseName(releaseId);
  const gated = new Set<string>();
  const totals = { released: 0, skipped: 0 };
  try {
    for (;;) {
      if (!(await takeLease(deps.store, lease, deps.instanceId, RELEASE_LEASE_MS, deps.now()))) {
        return "held-elsewhere";
      }
      let outcome: Awaited<ReturnType<typeof releaseNextBatch>>;
      try {
        outcome = await releaseNextBatch(
          deps.store,
          releaseId,
          gated,
          deps.triggersPerStep ?? DEFAULT_RELEASE_BATCH,
          deps.now(),
        );
      } catch (error) {
        if (error instanceof ReleaseRaceError) continue; // the other release took them; look again
        throw error;
      }
      if (outcome.kind === "finished") {
        const { closed } = outcome;
        if (closed) deps.metrics?.releaseFinished((deps.now().getTime() - closed.openedAt.getTime()) / 1000);
        for (const agentId of outcome.eventAgents) {
          if (await pumpEvents(deps.store, agentId, deps.now())) deps.planned();
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
  } finally {
    await dropLease(deps.store, lease, deps.instanceId).catch(() => {});
  }
}
