import type { z } from "zod";
import { ApiError } from "./errors";

/** Parses a body with zod; the 400 names the first bad field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join(".") || "body";
  throw new ApiError("invalid_body", `${field}: ${issue.message}`, field);
}
