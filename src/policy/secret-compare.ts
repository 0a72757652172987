import crypto from "node:crypto";

const digest = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest();

/**
 * Whether a presented secret (a token, a CSRF value, a webhook secret) is the expected one, in time that does
 * not depend on where they differ or on their lengths: both are hashed to 32 bytes first, so a value of
 * another length or in another encoding is simply unequal (never a thrown RangeError, never a length oracle).
 */
export const sameSecret = (given: string, expected: string): boolean =>
  crypto.timingSafeEqual(digest(given), digest(expected));
