import { z } from "zod";
import { ApiError } from "./errors";

/** `limit` and `cursor` of every list route. The cursor is opaque to callers: base64url of the last sort key. */
export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().min(1).max(1000).optional(),
};

export const encodeCursor = (key: unknown): string => Buffer.from(JSON.stringify(key), "utf8").toString("base64url");

/** The sort key a cursor carries, checked by `schema`; a cursor that is not one of ours is a 400. */
export function decodeCursor<T extends z.ZodType>(schema: T, cursor: string | undefined): z.infer<T> | undefined {
  if (cursor === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    raw = undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ApiError("invalid_body", "cursor: not a cursor from this list", "cursor");
  return parsed.data;
}

/** A list route's answer: `nextCursor` is null on the last page. */
export const pageAnswer = <T>(items: T[], next: unknown) => ({
  items,
  nextCursor: next === undefined ? null : encodeCursor(next),
});
