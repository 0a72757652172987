import type { DecisionResult } from "../../../policy/approval";

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
