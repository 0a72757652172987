import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { signatureHeaders } from "./webhook-signature.mjs";
import { isSignedWith } from "./webhook-verify";

const KEY = crypto.randomBytes(32);
const NOW = 1_800_000_000;
const BODY = JSON.stringify({ type: "chat.message", text: "héllo" });

const signed = (key: Buffer, at: number, body = BODY) => {
  const h = signatureHeaders(key, "msg-1", at, body);
  return { id: h["webhook-id"], timestamp: h["webhook-timestamp"], signature: h["webhook-signature"] };
};

describe("a Standard Webhooks signature checked by its receiver", () => {
  it("accepts the exact body signed with the key, also among several signatures", () => {
    expect(isSignedWith(KEY, signed(KEY, NOW), BODY, NOW)).toBe(true);
    const other = signed(crypto.randomBytes(32), NOW);
    const both = { ...other, signature: `${other.signature} ${signed(KEY, NOW).signature}` };
    expect(isSignedWith(KEY, both, BODY, NOW + 299)).toBe(true);
  });

  it("refuses another key, another body or id, an old or future timestamp, and missing or odd headers", () => {
    expect(isSignedWith(KEY, signed(crypto.randomBytes(32), NOW), BODY, NOW)).toBe(false);
    expect(isSignedWith(KEY, signed(KEY, NOW), `${BODY} `, NOW)).toBe(false);
    expect(isSignedWith(KEY, { ...signed(KEY, NOW), id: "msg-2" }, BODY, NOW)).toBe(false);
    expect(isSignedWith(KEY, signed(KEY, NOW - 301), BODY, NOW)).toBe(false);
    expect(isSignedWith(KEY, signed(KEY, NOW + 301), BODY, NOW)).toBe(false);
    expect(isSignedWith(KEY, {}, BODY, NOW)).toBe(false);
    expect(isSignedWith(KEY, { ...signed(KEY, NOW), timestamp: "1e9" }, BODY, NOW)).toBe(false);
    expect(isSignedWith(KEY, { ...signed(KEY, NOW), signature: "v1,ü" }, BODY, NOW)).toBe(false);
  });
});
