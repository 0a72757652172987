// The terminal's one line per event: the message, then the event's own fields as `name=value` (the key ones
// first), never a raw object. The JSON format carries the same fields as they are.

import { visibleText } from "../../policy/visible-text";

/** pino's own fields and what the message says already: not repeated after it. */
const OWN = new Set(["level", "time", "pid", "hostname", "msg", "err", "demo"]);

/** The fields a reader looks for first, in this order; the others follow as logged. */
const FIRST = ["actor", "user", "agent", "run", "outcome", "key", "destination", "state", "result"];

const LONGEST = 200;
/** A longer list is counted, not spelled out (the JSON format has it whole). */
const MOST_ITEMS = 6;

function scalar(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") {
    const text = value.length > LONGEST ? `${value.slice(0, LONGEST)}…` : value;
    return /[\s"=]/.test(text) || text === "" ? JSON.stringify(text) : text;
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return null;
}

/** One field as `name=value` pairs: an object's fields become `name.field=value`, two levels deep at most. */
function pairs(name: string, value: unknown, depth = 0): string[] {
  const one = scalar(value);
  if (one !== null) return [`${name}=${one}`];
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    const listed = items.every((i) => i !== null) && items.length <= MOST_ITEMS;
    return [listed ? `${name}=${items.join(",") || "none"}` : `${name}=${value.length} items`];
  }
  if (value && typeof value === "object" && depth < 2)
    return Object.entries(value).flatMap(([k, v]) => pairs(`${name}.${k}`, v, depth + 1));
  return [];
}

/** The error's own words: a string as logged, or the message of a serialised Error. */
function errorText(err: unknown): string | null {
  if (typeof err === "string") return err;
  if (err && typeof err === "object" && typeof (err as { message?: unknown }).message === "string")
    return (err as { message: string }).message;
  return null;
}

/** `pause actor=acme:alice agent=acme:ops-agent outcome=paused`; an error's text after the message. Invisible characters shown. */
export function logLine(line: Record<string, unknown>, messageKey: string): string {
  const err = errorText(line.err);
  const message = `${String(line[messageKey] ?? "")}${err ? `: ${err}` : ""}`;
  // A value the message says already (a URL, a file) is not said twice.
  const said = (k: string) => typeof line[k] === "string" && message.includes(line[k] as string);
  const names = Object.keys(line).filter((k) => !OWN.has(k) && k !== messageKey && !said(k));
  const ordered = [...FIRST.filter((k) => names.includes(k)), ...names.filter((k) => !FIRST.includes(k))];
  const fields = ordered.flatMap((k) => pairs(k, line[k]));
  // A bidi control in a logged reason would reorder the terminal's line as it does a card.
  return visibleText(fields.length ? `${message}  ${fields.join(" ")}` : message);
}
