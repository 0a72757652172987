import type { Queue } from "bullmq";
import type { Logger } from "pino";
import type { Store } from "../../store/connection/client";
import { drainingScopes, scopesWithUntil } from "../../store/control/drain";
import { uncoveredHeldAgents } from "../../store/held/counts";
import { openRecoveryReleasesWhereRunning, openReleaseIds } from "../../store/held/releases";
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

/** Agents whose gate is read and whose releases are opened together: one read and one insert for each lot. */
const RECOVERY_LOT = 1_000;

/**
 * Held rows of a running agent that no open release covers get a release of their own. The agents go a lot at a
 * time, not one gate read and one transaction each: with thousands of agents uncovered, one at a time outlived
 * the grace after a resume's release (releases.ts), and agents whose rows that release had taken got one more.
 */
export async function recoverOrphanedHolds(deps: Pick<RebuildDeps, "store" | "now" | "jobs">): Promise<number> {
  const uncovered = await uncoveredHeldAgents(deps.store.db);
  let recovered = 0;
  for (let i = 0; i < uncovered.length; i += RECOVERY_LOT) {
    const lot = uncovered.slice(i, i + RECOVERY_LOT).map((agent) => ({ ...agent, heldSince: null }));
    for (const releaseId of await openRecoveryReleasesWhereRunning(deps.store, lot, deps.now())) {
      await deps.jobs.release(releaseId);
      recovered++;
    }
  }
  return recovered;
}
