/**
 * The forms a pause's `until` takes, in chat and in the API alike: a duration from now ("2h", "1d12h",
 * "30m", "1w") or an absolute date or time ("2026-12-14", "2026-12-14T09:00Z", "2026-12-14 09:00",
 * "2026-12-14T09:00:00+01:00"). A date without a time is the start of that day in UTC, and a time without
 * an offset is UTC, so the answer never depends on the server's time zone. Pure: the clock is a parameter.
 */
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(?:\d+[mhdw])+$/i;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** True for a duration such as "2h" or "1d12h" (what a trailing word of `/pause` may be). */
export const isUntilDuration = (text: string): boolean => DURATION.test(text.trim());

/** A duration from now ("2h", "1d12h") or an absolute ISO date/time; null when it is neither. */
export function parseUntil(text: string, now: Date): Date | null {
  const value = text.trim();
  if (DURATION.test(value)) {
    let ms = 0;
    for (const [, amount, unit] of value.matchAll(/(\d+)([mhdw])/gi))
      ms += Number(amount) * UNIT_MS[unit!.toLowerCase()]!;
    return new Date(now.getTime() + ms);
  }
  if (!DATE.test(value)) return null;
  const iso = value.replace(" ", "T");
  const hasOffset = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(iso);
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : hasOffset ? iso : `${iso}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}
