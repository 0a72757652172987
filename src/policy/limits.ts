/**
 * Bounds every door applies, so a value always fits its column on both databases (PostgreSQL's `integer` is
 * 32 bits, its `timestamp` and SQLite's dates end at year 9999 for our ISO strings) and no input is too big to
 * handle. One place, so the API and chat refuse the same things.
 */

/** Nesting of any JSON body: deeper is refused before any handler sees it. */
export const MAX_JSON_DEPTH = 64;

const DAY_MS = 86_400_000;
/** The longest trigger interval: a yearly cadence, leap years included. */
export const MAX_EVERY_MS = 366 * DAY_MS;
/** The longest escalation delay of a run, in seconds (fits a 32-bit column with room to spare). */
export const MAX_ESCALATE_AFTER_S = 366 * 86_400;
/** The latest automatic resume: the last instant an ISO 8601 date of four digits can name, as the API takes. */
export const MAX_UNTIL = new Date("9999-12-31T23:59:59.999Z");

export const isWithinUntil = (date: Date) => Number.isFinite(date.getTime()) && date.getTime() <= MAX_UNTIL.getTime();

/** The path of the first string (key or value) holding U+0000, which PostgreSQL cannot store in text; or null. */
export function findNul(value: unknown, path: ReadonlyArray<string | number> = []): Array<string | number> | null {
  if (typeof value === "string") return value.includes("\u0000") ? [...path] : null;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, inner] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof key === "string" && key.includes("\u0000")) return [...path, key];
    const found = findNul(inner, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Whether JSON text nests deeper than `max`, found by one scan of the text (no parse, no recursion). */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
