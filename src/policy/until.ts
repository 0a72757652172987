import { durationMs } from "./duration";

/**
 * The forms a pause's `until` takes, in chat and in the API alike: a duration from now, in the one grammar of
 * duration.ts ("90s", "2h", "1d12h", "30m", "1w"), or an absolute date or time ("2026-12-14",
 * "2026-12-14T09:00Z", "2026-12-14 09:00", "2026-12-14T09:00:00+01:00"). A date without a time is the start of that day in UTC, and a time without
 * an offset is UTC, so the answer never depends on the server's time zone. Pure: the clock is a parameter.
 */
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** True for a duration such as "90s", "2h" or "1d12h" (what a trailing word of `/pause` may be). */
export const isUntilDuration = (text: string): boolean => durationMs(text) !== null;

/** A duration from now ("90s", "1d12h") or an absolute ISO date/time; null when it is neither. */
export function parseUntil(text: string, now: Date): Date | null {
  const value = text.trim();
  const ms = durationMs(value);
  if (ms !== null) return new Date(now.getTime() + ms);
  if (!DATE.test(value)) return null;
  const iso = value.replace(" ", "T");
  const hasOffset = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(iso);
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : hasOffset ? iso : `${iso}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}
