import type { Queue } from "bullmq";
import type { Logger } from "pino";
import type { Store } from "../../store/connection/client";
import { drainingScopes, scopesWithUntil } from "../../store/control/drain";
import { uncoveredHeldAgents } from "../../store/held/counts";
import { openRecoveryRelease, openReleaseIds } from "../../store/held/releases";
import { allTriggers, type StoredTrigger } from "../../store/held/triggers";
import { catchUpTriggers } from "./catch-up";
import { type ControlJobs, scheduleTrigger } from "./schedules";

export interface RebuildDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  triggers: Queue;
  jobs: ControlJobs;
}

/**
 * Redis is not the source of truth (design.md section 8): everything it should hold is re-derived from the
 * database. Every step is idempotent (schedulers are upserts, job ids are stable, occurrences are
 * insert-if-absent), so this runs at start, after Redis lost its data, and whenever in doubt.
 */
export async function rebuildFromDatabase(deps: RebuildDeps): Promise<Record<string, number>> {
  const { db } = deps.store;
  const triggers = await allTriggers(db);
  await rebuildTriggers(deps, triggers);
  const draining = await drainingScopes(db);
  for (const { scope, drainDeadline } of draining) await deps.jobs.drain(scope, drainDeadline);
  const untils = await scopesWithUntil(db);
  for (const { scope, until } of untils) await deps.jobs.autoResume(scope, until);
  const releases = await openReleaseIds(db);
  for (const id of releases) await deps.jobs.release(id, true);
  const recovered = await recoverOrphanedHolds(deps);
  const summary = {
    triggers: triggers.length,
    draining: draining.length,
    autoResumes: untils.length,
    openReleases: releases.length,
    recovered,
  };
  deps.log.info(summary, "schedules and held work rebuilt from the database");
  return summary;
}

/**
 * Schedulers upserted at once. Each is a few round trips to Redis: one after another, with each trigger's catch-up
 * between them, a start with 10,000 triggers took 94 s before it served (bench/release-memory.ts), and every slot
 * that passed meanwhile became a missed occurrence.
 */
const SCHEDULE_CONCURRENCY = 16;

/** Every trigger's scheduler, then the catch-up of all of them (catch-up.ts), then their releases' jobs. */
async function rebuildTriggers(deps: RebuildDeps, triggers: StoredTrigger[]): Promise<void> {
  let next = 0;
  const scheduleRest = async () => {
    while (next < triggers.length) await scheduleTrigger(deps.triggers, triggers[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(SCHEDULE_CONCURRENCY, triggers.length) }, scheduleRest));
  for (const releaseId of await catchUpTriggers(deps, triggers)) await deps.jobs.release(releaseId);
}

/** Held rows of a running agent that no open release covers get a release of their own. */
export async function recoverOrphanedHolds(deps: Pick<RebuildDeps, "store" | "now" | "jobs">): Promise<number> {
  let recovered = 0;
  for (const { agentId, tenantId } of await uncoveredHeldAgents(deps.store.db)) {
    const releaseId = await openRecoveryRelease(deps.store, agentId, tenantId, deps.now());
    if (!releaseId) continue;
    await deps.jobs.release(releaseId);
    recovered++;
  }
  return recovered;
}
