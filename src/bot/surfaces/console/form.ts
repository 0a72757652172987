import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { findNul } from "../../../policy/limits";
import { ApiError } from "../http/errors";
import { type ConsoleSession, sameToken } from "./session";

/** The console's forms are url-encoded; a field given twice keeps its first value. */
export function registerFormParser(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 16 * 1024 },
    (_request, body, done) => {
      const fields: Record<string, string> = {};
      for (const [key, value] of new URLSearchParams(body as string)) if (!(key in fields)) fields[key] = value;
      done(null, fields);
    },
  );
}

export class CsrfRefusal extends Error {
  readonly code = "csrf";
}

/**
 * A form post's fields, once its CSRF token matched the session's: a post without it (or with another
 * session's) is refused before anything runs, so it changes nothing.
 */
export function formOf<T extends z.ZodType>(request: FastifyRequest, session: ConsoleSession, schema: T): z.infer<T> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (typeof body !== "object" || !sameToken(body._csrf, session.csrfToken)) throw new CsrfRefusal();
  return fieldsOf(body, schema);
}

/** Validates fields (NUL refused, as everywhere): a clear 400 for anything else. */
export function fieldsOf<T extends z.ZodType>(body: unknown, schema: T): z.infer<T> {
  if (findNul(body)) throw new ApiError("invalid_body", "a field holds a NUL character");
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError("invalid_body", `${issue?.path.join(".") || "form"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}
