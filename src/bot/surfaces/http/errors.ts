import type { DecisionResult } from "../../../policy/approval";
import { isDatabaseUnavailable } from "../../../policy/database-unavailable";

/** Every refusal the API returns, with its HTTP status. One place turns a code into a status. */
export const HTTP_STATUS = {
  unauthorized: 401,
  token_revoked: 401,
  token_expired: 401,
  tokens_only: 403,
  forbidden: 403,
  creator_hold: 403,
  rejected: 403,
  not_found: 404,
  not_paused: 409,
  conflict: 409,
  stale: 409,
  invalid_state: 409,
  expired: 409,
  not_needs_review: 409,
  invalid_transition: 409,
  quota_exceeded: 409,
  checklist_failed: 409,
  invalid_body: 400,
  invalid_json: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal: 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof HTTP_STATUS;

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
  get status(): number {
    return HTTP_STATUS[this.code];
  }
  toJSON() {
    return { error: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) };
  }
}

/**
 * Every decision answers `{ result, run }`; the status says whether it took effect. A duplicate is a
 * success (the recorded decision stands), refusals are 403/409 so plain HTTP clients notice them.
 */
export const decisionStatus = (result: DecisionResult): number =>
  result === "approved" || result === "denied" || result === "duplicate" ? 200 : HTTP_STATUS[result];

/** What a 503 `unavailable` asks the client to wait before it tries again (Retry-After, seconds). */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/**
 * Any failure as the API's refusal: an ApiError as it is; Fastify's own errors (body too large, bad JSON, bad
 * content type) as their codes; a database that cannot serve right now as `unavailable` (503, try again: the
 * request changed nothing); anything else as `internal`.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE")
    return new ApiError("payload_too_large", "request body is larger than allowed");
  if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return new ApiError("unsupported_media_type", message);
  if (
    code === "FST_ERR_CTP_EMPTY_JSON_BODY" ||
    code === "FST_ERR_CTP_INVALID_JSON_BODY" ||
    error instanceof SyntaxError
  ) {
    return new ApiError("invalid_json", "request body is not valid JSON");
  }
  if ((error as { name?: string }).name === "ZodError")
    return new ApiError("invalid_body", "invalid request parameters");
  if (isDatabaseUnavailable({ code, message })) {
    return new ApiError("unavailable", "the database is unreachable or too busy to take this request; try again");
  }
  return new ApiError("internal", "internal error");
}
