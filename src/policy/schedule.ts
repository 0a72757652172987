import { CronExpressionParser } from "cron-parser";
import { parseDurationMs } from "./duration";

/**
 * A trigger's cadence: a fixed interval, or a cron pattern. An `every` trigger's slots are
 * `offsetMs + k * everyMs` from the Unix epoch: the anchor is the epoch unless the caller gave an `anchor`
 * timestamp, whose remainder modulo the interval is `offsetMs` (0 <= offsetMs < everyMs).
 */
export type Cadence =
  | { kind: "every"; everyMs: number; offsetMs?: number }
  | { kind: "cron"; pattern: string; tz?: string };

export const MIN_EVERY_MS = 50;

/** "15m", "90s" or a number of ms; null when it is not a duration or is too short to be sensible. */
export function parseEvery(value: string | number): number | null {
  const ms = typeof value === "number" ? value : parseDurationMs(value);
  return ms !== null && Number.isInteger(ms) && ms >= MIN_EVERY_MS ? ms : null;
}

/** The offset of an anchor's slots within the interval: the same slots for every anchor `k * everyMs` apart. */
export function anchorOffset(everyMs: number, anchor: Date | null): number {
  if (!anchor) return 0;
  return ((anchor.getTime() % everyMs) + everyMs) % everyMs;
}

/** The latest `every` slot at or before `millis`. */
function slotAtOrBefore(everyMs: number, offsetMs: number, millis: number): number {
  return Math.floor((millis - offsetMs) / everyMs) * everyMs + offsetMs;
}

export function isValidCron(pattern: string, tz?: string): boolean {
  try {
    CronExpressionParser.parse(pattern, { tz, currentDate: new Date(0) }).next();
    return true;
  } catch {
    return false;
  }
}

/** Whether the IANA zone is known to this runtime's Intl data (a cron trigger's and quiet hours' `tz`). */
export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The due times in (after, upTo], oldest first, at most `limit` (the newest are kept, so a year of downtime
 * cannot flood the database). The schedule alone decides them, so a tick, a duplicated job and a
 * recomputation after downtime all name the same occurrences.
 */
export function dueTimesBetween(cadence: Cadence, after: Date, upTo: Date, limit = 10_000): Date[] {
  const out: Date[] = [];
  if (upTo.getTime() <= after.getTime()) return out;
  if (cadence.kind === "every") {
    const step = cadence.everyMs;
    const offset = cadence.offsetMs ?? 0;
    const last = slotAtOrBefore(step, offset, upTo.getTime());
    const first = Math.max(slotAtOrBefore(step, offset, after.getTime()) + step, last - (limit - 1) * step);
    for (let t = first; t <= last; t += step) out.push(new Date(t));
    return out;
  }
  const expression = CronExpressionParser.parse(cadence.pattern, { tz: cadence.tz, currentDate: after });
  for (;;) {
    const next = expression.next().toDate();
    if (next.getTime() > upTo.getTime()) break;
    out.push(next);
    if (out.length > limit) out.shift();
  }
  return out;
}

/**
 * The slot a scheduler tick stands for: the latest slot at or before the time it fired (BullMQ fires at
 * the slots themselves, see queue/held/schedules.ts), so a due time is never later than its send and a
 * tick and a recomputation after downtime name the same occurrence. Cron slots are whole seconds.
 */
export function slotFor(cadence: Cadence, millis: number): Date {
  if (cadence.kind === "cron") return new Date(Math.floor(millis / 1000) * 1000);
  return new Date(slotAtOrBefore(cadence.everyMs, cadence.offsetMs ?? 0, millis));
}

/** Slots a late tick may fill as ordinary ticks; a longer gap is an outage and follows the misfire policy. */
export const JITTER_SLOTS = 2;

/**
 * Splits the due times of one tick: BullMQ re-bases a late scheduler on "now", which can step over a slot,
 * so slots since the last recorded one are filled in as ordinary ticks; a longer gap is missed time.
 */
export function tickDueTimes(
  cadence: Cadence,
  lastDueAt: Date | null,
  slot: Date,
): { current: Date[]; missed: Date[] } {
  const gap = lastDueAt ? dueTimesBetween(cadence, lastDueAt, new Date(slot.getTime() - 1)) : [];
  return gap.length <= JITTER_SLOTS ? { current: [...gap, slot], missed: [] } : { current: [slot], missed: gap };
}

/** The first due time after `now` (what the API shows as a trigger's next run). */
export function nextDueAfter(cadence: Cadence, now: Date): Date {
  if (cadence.kind === "every")
    return new Date(slotAtOrBefore(cadence.everyMs, cadence.offsetMs ?? 0, now.getTime()) + cadence.everyMs);
  return CronExpressionParser.parse(cadence.pattern, { tz: cadence.tz, currentDate: now }).next().toDate();
}

/**
 * Due times more than `graceMs` old that no tick recorded: while Redis is down or being rebuilt nothing
 * ticks, and the rebuild's catch-up will record exactly these (`dueTimesBetween` from the last recorded
 * one). The grace leaves out the slot a tick is recording right now.
 */
export function overdueDueTimes(cadence: Cadence, lastRecorded: Date, now: Date, graceMs = 1_000): Date[] {
  return dueTimesBetween(cadence, lastRecorded, new Date(now.getTime() - graceMs));
}
