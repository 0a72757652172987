import { occurrenceKey } from "../../policy/ids";
import type { Store } from "../connection/client";
import { count, type Dialect, rows, rowsParam, rowTime, type Step, sqlText } from "../connection/sql";
import type { StoredTrigger } from "./triggers";

export interface MissedRecord {
  /** Occurrences new to the database (due times already recorded are left alone). */
  recorded: number;
}

export interface MissedOccurrences {
  trigger: StoredTrigger;
  /** Due times that passed with no tick (process down, Redis emptied). */
  missed: Date[];
  /** The gate's answer, read just before: paused agents keep the rows HELD for their resume. */
  held: boolean;
  now: Date;
}

/** Occurrence rows in one statement, insert-if-absent by key: the ids this statement wrote come back. */
export const INSERT_OCCURRENCES = sqlText(
  (
    d,
  ) => `INSERT INTO "Occurrence" ("id", "triggerId", "tenantId", "agentId", "dueAt", "state", "outboxId", "createdAt", "updatedAt")
  SELECT r."c0", r."c1", r."c2", r."c3", ${d.timeOf('r."c4"')}, r."c5", r."c6", ${d.time}, ${d.time}
  FROM ${d.rowsOf(7)} WHERE true
  ON CONFLICT ("id") DO NOTHING RETURNING "id"`,
);
/** Each trigger's newest due time, never moved back, in one statement: rows of (trigger id, due time). */
export const ADVANCE_TRIGGERS = sqlText(
  (d) => `UPDATE "Trigger" SET "lastDueAt" = ${d.timeOf('r."c1"')}, "updatedAt" = ${d.time}
  FROM ${d.rowsOf(2)}
  WHERE "Trigger"."id" = r."c0" AND ("Trigger"."lastDueAt" IS NULL OR "Trigger"."lastDueAt" < ${d.timeOf('r."c1"')})`,
);

/**
 * Records missed due times as HELD occurrences, insert-if-absent by key (design.md section 10), in one statement
 * that skips keys already there: a tick that records one of the same due times at the same moment leaves it to
 * the tick. (A read of the keys, then an insert that failed on such a key and was tried again up to three times,
 * crashed a process at start under load: its catch-up of 10,000 triggers raced their first ticks.) The caller
 * then has a running agent's rows released (queue/held/catch-up.ts), so a night's outage becomes one
 * coalesced delivery (or all, or none, per the trigger), never a silent drop; a crash in between leaves held
 * rows with an open gate, which the orphaned-hold recovery releases. Scheduler ticks take the batched path.
 */
export async function recordMissed(store: Store, due: MissedOccurrences): Promise<MissedRecord> {
  const recorded = await recordMissedOfTriggers(store, [due], due.now);
  return { recorded: recorded.get(due.trigger.id) ?? 0 };
}

/**
 * `recordMissed` for many triggers in one transaction of two statements, whatever their number: a start's
 * catch-up of 10,000 triggers was 10,000 transactions, one after another (queue/held/rebuild.ts).
 * Returns the occurrences written per trigger id (triggers with none are absent).
 */
export async function recordMissedOfTriggers(
  store: Store,
  dues: readonly MissedOccurrences[],
  now: Date,
): Promise<Map<string, number>> {
  const missing = dues.filter((due) => due.missed.length > 0);
  if (missing.length === 0) return new Map();
  return store.sql.write((d) => recordMissedStep(d, missing, now));
}

function* recordMissedStep(d: Dialect, dues: readonly MissedOccurrences[], now: Date): Step<Map<string, number>> {
  const triggerOf = new Map<string, StoredTrigger>();
  const rowsOfDues = dues.flatMap(({ trigger, missed }) =>
    missed.map((dueAt) => {
      const id = occurrenceKey(trigger.agentId, trigger.key, dueAt);
      triggerOf.set(id, trigger);
      return [id, trigger.id, trigger.tenantId, trigger.agentId, rowTime(dueAt), "HELD", null];
    }),
  );
  const written = yield* rows<{ id: string }>(INSERT_OCCURRENCES(d), now, now, rowsParam(rowsOfDues));
  const recorded = new Map<string, number>();
  for (const { id } of written) {
    const triggerId = triggerOf.get(id)!.id;
    recorded.set(triggerId, (recorded.get(triggerId) ?? 0) + 1);
  }
  if (recorded.size === 0) return recorded;
  // Each trigger with a row written now moves to its newest missed due time (written now or by the tick that
  // wrote it first, which advanced the trigger too).
  const advanced = dues
    .filter(({ trigger }) => recorded.has(trigger.id))
    .map(({ trigger, missed }) => {
      const latest = new Date(missed.reduce((newest, dueAt) => Math.max(newest, dueAt.getTime()), 0));
      return [trigger.id, rowTime(latest)];
    });
  yield* count(ADVANCE_TRIGGERS(d), now, rowsParam(advanced));
  return recorded;
}
