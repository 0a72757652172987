/**
 * The canonical JSON encoding (design.md section 5): the text a packet's digest and an event's fingerprint
 * are taken over, so the same value gives the same text whatever its key order or formatting was.
 * - objects: keys sorted by UTF-16 code unit order (JavaScript's default sort), written `{"k":v,...}`;
 * - arrays: elements in their order, written `[a,b,...]`;
 * - strings, numbers, booleans and null: exactly as JSON.stringify writes them (shortest round-trip
 *   numbers, `\u` escapes only where JSON requires them);
 * - no whitespace anywhere outside strings.
 *
 * What JSON cannot say is treated as JSON.stringify treats it inside a value: a member whose value is `undefined`, a function or a
 * symbol is left out, and such an array element is written `null`. At the top, where JSON.stringify would
 * return no text at all, this throws a TypeError instead of hashing a stand-in: a digest of "null" for
 * `undefined` would make two different inputs agree. Packets and event bodies arrive as parsed JSON, so
 * none of these cases reaches a stored digest or fingerprint; both earlier encoders gave this same text for
 * every JSON value, so no stored digest changes.
 */
export function canonicalJson(value: unknown): string {
  const text = encode(value);
  if (text === undefined) throw new TypeError(`cannot encode ${typeof value} as JSON`);
  return text;
}

function encode(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => encode(v) ?? "null").join(",")}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const text = encode(record[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(",")}}`;
}
