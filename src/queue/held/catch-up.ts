import type { Logger } from "pino";
import type { MetricsSink } from "../../policy/metrics-sink";
import { dueTimesBetween } from "../../policy/schedule";
import type { Store } from "../../store/connection/client";
import { readGateControls } from "../../store/control/gate";
import { gateOf } from "../../store/control/records";
import { type MissedOccurrences, recordMissedOfTriggers } from "../../store/held/occurrences";
import { openRecoveryReleases } from "../../store/held/releases";
import { cadenceOf, type StoredTrigger } from "../../store/held/triggers";

export interface FireDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  /** Counts the recovery releases opened here. */
  metrics?: MetricsSink;
}

/**
 * Missed due times written at once, at most about this many rows: one gate read and one transaction for the
 * lot, where a trigger at a time was one of each per trigger (rebuild.ts says what that cost at start).
 */
const CATCH_UP_ROWS = 5_000;

/**
 * Time that passed while nothing ran counts too (design.md section 10): due times between each trigger's last
 * recorded occurrence and now that have no row become missed occurrences, released per the misfire policy.
 * A running agent with rows recorded gets a release (unless one of it or its tenant is open to take them);
 * returns the ids of the releases opened.
 */
export async function catchUpTriggers(deps: FireDeps, triggers: readonly StoredTrigger[]): Promise<string[]> {
  const now = deps.now();
  const batches: StoredTrigger[][] = [[]];
  let rowsInBatch = 0;
  const missedOf = new Map<string, Date[]>();
  for (const trigger of triggers) {
    const missed = dueTimesBetween(cadenceOf(trigger), trigger.lastDueAt ?? trigger.createdAt, now);
    if (missed.length === 0) continue;
    if (rowsInBatch > 0 && rowsInBatch + missed.length > CATCH_UP_ROWS) {
      batches.push([]);
      rowsInBatch = 0;
    }
    missedOf.set(trigger.id, missed);
    batches.at(-1)!.push(trigger);
    rowsInBatch += missed.length;
  }
  const releases: string[] = [];
  for (const batch of batches.filter((b) => b.length > 0)) {
    releases.push(...(await catchUpBatch(deps, batch, missedOf, now)));
  }
  return releases;
}

async function catchUpBatch(
  deps: FireDeps,
  triggers: StoredTrigger[],
  missedOf: Map<string, Date[]>,
  now: Date,
): Promise<string[]> {
  // Fail closed: records that cannot be read hold every agent, whose rows then wait for a resume.
  const controls = await readGateControls(deps.store, triggers);
  const dues: MissedOccurrences[] = triggers.map((trigger) => ({
    trigger,
    missed: missedOf.get(trigger.id)!,
    held: gateOf(controls, trigger.agentId, trigger.tenantId).held,
    now,
  }));
  const recorded = await recordMissedOfTriggers(deps.store, dues, now);
  if (recorded.size === 0) return [];
  const caught = dues.filter((due) => recorded.has(due.trigger.id));
  deps.log.info(
    {
      triggers: caught.length,
      missed: [...recorded.values()].reduce((sum, n) => sum + n, 0),
      held: caught.filter((due) => due.held).length,
    },
    "missed occurrences recorded",
  );
  // One release per running agent, its window starting at the earliest of its triggers' last due times.
  const running = new Map<string, { tenantId: string; lastDueAts: Array<Date | null> }>();
  for (const { trigger } of caught.filter((due) => !due.held)) {
    const agent = running.get(trigger.agentId) ?? { tenantId: trigger.tenantId, lastDueAts: [] };
    agent.lastDueAts.push(trigger.lastDueAt);
    running.set(trigger.agentId, agent);
  }
  const wanted = [...running].map(([agentId, { tenantId, lastDueAts }]) => ({
    agentId,
    tenantId,
    heldSince: earliest(lastDueAts),
  }));
  const releases = await openRecoveryReleases(deps.store, wanted, now);
  for (const _ of releases) deps.metrics?.releaseStarted();
  return releases;
}

/** The earliest of the times; null (not known) when any of them is. */
const earliest = (times: Array<Date | null>): Date | null =>
  times.reduce<Date | null>(
    (first, at) => (first === null || at === null ? null : new Date(Math.min(at.getTime(), first.getTime()))),
    times[0] ?? null,
  );
