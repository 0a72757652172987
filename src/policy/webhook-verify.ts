import type { KeyObject } from "node:crypto";
import { sameSecret } from "./secret-compare";
import { signatureHeaders } from "./webhook-signature.mjs";

/** How far a signature's timestamp may be from the receiver's clock (Standard Webhooks' own default). */
const TOLERANCE_SECONDS = 5 * 60;

export interface WebhookHeaders {
  id?: string;
  timestamp?: string;
  signature?: string;
}

/**
 * Whether a request carries a Standard Webhooks signature of its exact body under `key`, made within five
 * minutes of `nowSeconds` (a replayed old request is refused). The header may hold several signatures, one
 * of which must match; each is compared in constant time.
 */
export function isSignedWith(key: KeyObject | Buffer, headers: WebhookHeaders, body: string, nowSeconds: number) {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = signatureHeaders(key, id, Number(timestamp), body)["webhook-signature"];
  return signature.split(" ").some((given) => sameSecret(given, expected));
}
