// Standard Webhooks signatures (https://www.standardwebhooks.com): pure computation, no I/O. Plain JavaScript
// (typed by webhook-signature.d.mts) because the delivery thread signs each POST it sends, and the chat
// conversation path signs with the same function.
import crypto from "node:crypto";

/**
 * The three headers of a signed delivery: `webhook-id` (the item's stable key, so a receiver can also
 * deduplicate on it), `webhook-timestamp` (seconds) and `webhook-signature`, `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body` under the agent's key (the bytes after `whsec_`, base64-decoded).
 * @param {import("node:crypto").KeyObject | Buffer} key
 * @param {string} id
 * @param {number} timestampSeconds
 * @param {string} body
 */
export function signatureHeaders(key, id, timestampSeconds, body) {
  const mac = crypto.createHmac("sha256", key).update(`${id}.${timestampSeconds}.`).update(body).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(timestampSeconds), "webhook-signature": `v1,${mac}` };
}
