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
  if (due.missed.length === 0) return { recorded: 0 };
  return store.sql.write((d) => recordMissedStep(d, due));
}

function* recordMissedStep(d: Dialect, due: MissedOccurrences): Step<MissedRecord> {
  const { trigger, now } = due;
  const rowOf = (dueAt: Date) => {
    const id = occurrenceKey(trigger.agentId, trigger.key, dueAt);
    return [id, trigger.id, trigger.tenantId, trigger.agentId, rowTime(dueAt), "HELD", null];
  };
  const written = yield* rows<{ id: string }>(INSERT_OCCURRENCES(d), now, now, rowsParam(due.missed.map(rowOf)));
  if (written.length === 0) return { recorded: 0 };
  // The newest missed due time, written now or by the tick that wrote it first (which advanced the trigger too).
  const latest = new Date(due.missed.reduce((newest, dueAt) => Math.max(newest, dueAt.getTime()), 0));
  yield* count(ADVANCE_TRIGGERS(d), now, rowsParam([[trigger.id, rowTime(latest)]]));
  return { recorded: written.length };
}
