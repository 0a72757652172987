import type { Queue } from "bullmq";
import type { Logger } from "pino";
import type { Store } from "../../store/connection/client";
import { drainingScopes, scopesWithUntil } from "../../store/control/drain";
import { uncoveredHeldAgents } from "../../store/held/counts";
import { openRecoveryRelease, openReleaseIds } from "../../store/held/releases";
import { allTriggers } from "../../store/held/triggers";
import { catchUpTrigger } from "./catch-up";
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
  for (const trigger of triggers) {
    await scheduleTrigger(deps.triggers, trigger);
    const caught = await catchUpTrigger(deps, trigger);
    if (caught.releaseId) await deps.jobs.release(caught.releaseId);
  }
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
