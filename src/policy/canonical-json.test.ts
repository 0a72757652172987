import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";

/** The two encoders this one replaced, as they were: every stored digest and fingerprint came from them. */
function formerDigestEncoding(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`cannot encode ${typeof value} as JSON`);
    return text;
  }
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : formerDigestEncoding(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined);
  return `{${keys
    .sort()
    .map((key) => `${JSON.stringify(key)}:${formerDigestEncoding(record[key])}`)
    .join(",")}}`;
}
function formerFingerprintEncoding(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(formerFingerprintEncoding).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${formerFingerprintEncoding(v)}`).join(",")}}`;
}

describe("canonicalJson", () => {
  it("is the text both former encoders gave for every JSON value, and reads back to itself", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(text).toBe(formerDigestEncoding(value));
        expect(text).toBe(formerFingerprintEncoding(value));
      }),
      { numRuns: 500 },
    );
  });

  it("gives the same text whatever the key order and formatting of the parsed text", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(JSON.parse(JSON.stringify(reversed, null, 2)))).toBe(canonicalJson(record));
      }),
    );
  });

  it("leaves out what JSON cannot say inside a value, as JSON.stringify does", () => {
    expect(canonicalJson({ b: undefined, a: 1, f: () => 1, s: Symbol("x") })).toBe('{"a":1}');
    expect(canonicalJson([undefined, () => 1, 2])).toBe("[null,null,2]");
  });

  it("refuses a value with no JSON text at all rather than hashing a stand-in", () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
    expect(canonicalJson(null)).toBe("null");
  });
});
