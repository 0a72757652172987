/**
 * The one duration grammar, for the environment, the config file, the API and `/pause` alike: one or more
 * parts, each a number and a unit, added up. "250ms", "90s", "15m", "1h30m", "1.5d", "2w", "1w 2d".
 * Units: ms, s, m (minutes), h, d, w, in any letter case; a part may have a decimal fraction; space may
 * stand between a number and its unit and between parts. The total is rounded to whole milliseconds.
 */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const DURATION = /^(?:\d+(?:\.\d+)?\s*(?:ms|s|m|h|d|w)\s*)+$/i;
const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/gi;
const BARE_NUMBER = /^\d+(?:\.\d+)?$/;

/** A duration written with its units, in milliseconds; null when the text is not one. */
export function durationMs(text: string): number | null {
  const value = text.trim();
  if (!DURATION.test(value)) return null;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(PART)) total += Number(amount) * UNIT_MS[unit!.toLowerCase()]!;
  return Math.round(total);
}

/**
 * The environment's and the config's form: a duration as above, or a bare number of milliseconds ("250").
 * A chat command does not take a bare number as a duration: `/pause incident 4521` keeps 4521 in its reason.
 */
export function parseDurationMs(text: string): number | null {
  const value = text.trim();
  return BARE_NUMBER.test(value) ? Math.round(Number(value)) : durationMs(value);
}

const WORD_UNITS: Array<[string, number]> = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["min", 60_000],
  ["s", 1_000],
  ["ms", 1],
];

/**
 * A duration as people say it, in its two largest whole units: "15 min", "30 s", "1 h 30 min", "2 d",
 * "250 ms". Every surface that shows a cadence or a delay says it this way.
 */
export function durationWords(ms: number): string {
  const parts: string[] = [];
  let left = Math.max(0, Math.round(ms));
  for (const [unit, size] of WORD_UNITS) {
    if (left >= size && parts.length < 2) {
      parts.push(`${Math.floor(left / size)} ${unit}`);
      left %= size;
    } else if (parts.length) break;
  }
  return parts.join(" ") || "0 s";
}
