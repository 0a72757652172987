import { isWithinUntil } from "../../../policy/limits";
import { isUntilDuration, parseUntil } from "../../../policy/until";

export { parseUntil };

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

export function parsePauseArgs(text: string, now: Date): PauseArgs {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const untilAt = words.findIndex((w) => w.toLowerCase() === "until");
  let untilText: string | null = null;
  if (untilAt >= 0) {
    untilText = words.slice(untilAt + 1).join(" ");
    words.splice(untilAt);
    if (!untilText) return { ok: false, code: "invalid_until" };
  } else if (words.length > 0 && isUntilDuration(words.at(-1)!)) {
    untilText = words.pop()!;
  }
  const reason = (words.join(" ") || DEFAULT_PAUSE_REASON).slice(0, MAX_REASON);
  if (untilText === null) return { ok: true, reason, until: null };
  const until = untilArg(untilText, now);
  return until.ok ? { ok: true, reason, until: until.at } : until;
}

/** The words after `until` (chat) or the console's until field: a future time within the API's bound. */
export function untilArg(text: string, now: Date): { ok: true; at: Date } | { ok: false; code: PauseArgsError } {
  const until = parseUntil(text, now);
  if (!until) return { ok: false, code: "invalid_until" };
  // The API's bound (an ISO date of four-digit year); `99999999999999999w` is not even a time.
  if (!isWithinUntil(until)) return { ok: false, code: "until_too_far" };
  if (until.getTime() <= now.getTime()) return { ok: false, code: "until_in_past" };
  return { ok: true, at: until };
}
