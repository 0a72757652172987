/** An agent token lives 15 minutes unless the agent asks for another `ttl`, and never more than an hour. */
export const DEFAULT_TOKEN_TTL_S = 900;
export const MAX_TOKEN_TTL_S = 3_600;

/** Marks a short-lived token apart from a long-lived key, so a key holder never mistakes one for the other. */
export const TOKEN_PREFIX = "hft_";

export type TokenVerdict = "valid" | "expired" | "revoked";

/**
 * A revoked token stays revoked after it would have expired: the caller learns that a pause ended it, which
 * tells the agent to mint a fresh one after the resume.
 */
export function tokenVerdict(token: { expiresAt: Date; revokedAt: Date | null }, now: Date): TokenVerdict {
  if (token.revokedAt) return "revoked";
  return token.expiresAt.getTime() > now.getTime() ? "valid" : "expired";
}
