import type { z } from "zod";
import { findNul } from "./limits";

/**
 * A list's cursor is opaque to callers: base64url of the last item's sort key as JSON. A cursor that does
 * not decode to the list's key shape is not one of ours.
 */
export const encodeCursor = (key: unknown): string => Buffer.from(JSON.stringify(key), "utf8").toString("base64url");

/** The sort key `cursor` carries, checked by `schema`: `{ ok: false }` for a cursor that is not one of ours. */
export function readCursor<T extends z.ZodType>(
  schema: T,
  cursor: string | undefined,
): { ok: true; key: z.infer<T> | undefined } | { ok: false } {
  if (cursor === undefined) return { ok: true, key: undefined };
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return { ok: false };
  }
  // A NUL cannot be stored in a PostgreSQL text column, so a key that holds one is forged, never ours.
  if (findNul(raw)) return { ok: false };
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, key: parsed.data } : { ok: false };
}

/** A list's answer: `nextCursor` is null on the last page. */
export const pageAnswer = <T>(items: T[], next: unknown) => ({
  items,
  nextCursor: next === undefined ? null : encodeCursor(next),
});
