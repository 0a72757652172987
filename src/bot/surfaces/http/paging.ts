import { z } from "zod";
import { readCursor } from "../../../policy/cursor";
import { ApiError } from "./errors";

export { encodeCursor, pageAnswer } from "../../../policy/cursor";

/** `limit` and `cursor` of every list route. The cursor is opaque to callers: base64url of the last sort key. */
export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().min(1).max(1000).optional(),
};

/** The sort key a cursor carries, checked by `schema`; a cursor that is not one of ours is a 400. */
export function decodeCursor<T extends z.ZodType>(schema: T, cursor: string | undefined): z.infer<T> | undefined {
  const read = readCursor(schema, cursor);
  if (!read.ok) throw new ApiError("invalid_body", "cursor: not a cursor from this list", "cursor");
  return read.key;
}
