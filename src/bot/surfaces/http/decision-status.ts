import type { DecisionResult } from "../../../policy/approval";

/**
 * Every decision answers `{ result, run }`; the status says whether it took effect. A duplicate is a
 * success (the recorded decision stands), refusals are 403/409 so plain HTTP clients notice them.
 */
export function decisionStatus(result: DecisionResult): number {
  switch (result) {
    case "approved":
    case "denied":
    case "duplicate":
      return 200;
    case "rejected":
      return 403;
    case "conflict":
    case "stale":
    case "invalid_state":
    case "expired":
      return 409;
  }
}
