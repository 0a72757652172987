import crypto from "node:crypto";

/**
 * The canonical JSON encoding of a packet (design.md section 5), the text its digest is taken over:
 * - objects: keys sorted by UTF-16 code unit order (JavaScript's default sort), written `{"k":v,...}`;
 *   keys whose value is `undefined` are left out, as JSON.stringify does;
 * - arrays: elements in their order, written `[a,b,...]`;
 * - strings, numbers, booleans and null: exactly as JSON.stringify writes them (shortest round-trip
 *   numbers, `\u` escapes only where JSON requires them);
 * - no whitespace anywhere outside strings.
 * The same value therefore encodes to the same text whatever its key order or formatting was.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`cannot encode ${typeof value} as JSON`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(",")}}`;
}

/** `sha256:` + the lowercase hex SHA-256 of the UTF-8 bytes of the canonical encoding. */
export function packetDigest(packet: unknown): string {
  return `sha256:${crypto.createHash("sha256").update(canonicalJson(packet), "utf8").digest("hex")}`;
}
