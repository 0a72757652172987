import { createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";

// Discord signs HTTP interactions with Ed25519 over `timestamp + rawBody`. node:crypto does Ed25519
// natively, so no tweetnacl is needed on either side.

/** DER prefix that wraps a raw 32-byte Ed25519 key into SPKI, the only form createPublicKey accepts. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface DiscordKeyPair {
  /** What the Developer Portal shows as "Public Key": 32 raw bytes, hex. */
  publicKeyHex: string;
  sign(timestamp: string, body: string): string;
  /** Headers Discord would send with `body`. */
  headers(body: string, timestamp?: string): { "x-signature-ed25519": string; "x-signature-timestamp": string };
}

export function makeDiscordKeyPair(): DiscordKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicKeyHex = publicKey
    .export({ format: "der", type: "spki" })
    .subarray(ED25519_SPKI_PREFIX.length)
    .toString("hex");
  const signBody = (timestamp: string, body: string) =>
    sign(null, Buffer.from(timestamp + body), privateKey).toString("hex");
  return {
    publicKeyHex,
    sign: signBody,
    headers(body, timestamp = String(Math.floor(Date.now() / 1000))) {
      return { "x-signature-ed25519": signBody(timestamp, body), "x-signature-timestamp": timestamp };
    },
  };
}

/** The check a bot must do; here so tests can prove the signing helper round-trips. */
export function verifyDiscordSignature(publicKeyHex: string, timestamp: string, body: string, signatureHex: string) {
  try {
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyHex, "hex")]),
      format: "der",
      type: "spki",
    });
    return verify(null, Buffer.from(timestamp + body), key, Buffer.from(signatureHex, "hex"));
  } catch {
    // Malformed key or signature hex is simply "not verified", as a real endpoint would treat it.
    return false;
  }
}
