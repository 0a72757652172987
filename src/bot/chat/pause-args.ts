import { isWithinUntil } from "../../policy/limits";

/**
 * Parses the words after `/pause` into a reason and an optional automatic-resume time:
 *   "vacation until 2026-12-14"  -> reason "vacation", until 2026-12-14T00:00:00Z
 *   "deploy 2h"                  -> reason "deploy",   until now + 2 h
 *   "deploy until 1h30m"         -> reason "deploy",   until now + 90 min
 *   ""                           -> the default reason, no until
 * A date without a time means the start of that day in UTC; a time without an offset is UTC too, so the
 * answer never depends on the server's time zone. Pure: the clock is a parameter.
 */
export type PauseArgs = { ok: true; reason: string; until: Date | null } | { ok: false; code: PauseArgsError };
export type PauseArgsError = "invalid_until" | "until_in_past" | "until_too_far";

export const DEFAULT_PAUSE_REASON = "paused from chat";
const MAX_REASON = 500;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(?:\d+[mhdw])+$/i;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

export function parsePauseArgs(text: string, now: Date): PauseArgs {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const untilAt = words.findIndex((w) => w.toLowerCase() === "until");
  let untilText: string | null = null;
  if (untilAt >= 0) {
    untilText = words.slice(untilAt + 1).join(" ");
    words.splice(untilAt);
    if (!untilText) return { ok: false, code: "invalid_until" };
  } else if (words.length > 0 && DURATION.test(words.at(-1)!)) {
    untilText = words.pop()!;
  }
  const reason = (words.join(" ") || DEFAULT_PAUSE_REASON).slice(0, MAX_REASON);
  if (untilText === null) return { ok: true, reason, until: null };
  const until = parseUntil(untilText, now);
  if (!until) return { ok: false, code: "invalid_until" };
  // The API's bound (an ISO date of four-digit year); `99999999999999999w` is not even a time.
  if (!isWithinUntil(until)) return { ok: false, code: "until_too_far" };
  if (until.getTime() <= now.getTime()) return { ok: false, code: "until_in_past" };
  return { ok: true, reason, until };
}

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
