import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";
import { packetDigest } from "./digest";
import { actionKey } from "./ids";

describe("canonical JSON and the packet digest", () => {
  it("sorts keys at every depth and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: "x" }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":"x","z":0}]},"b":1}',
    );
  });

  it("is stable across key order and formatting", () => {
    const one = JSON.parse('{ "to": "ops@example.com",  "amount": 12.5, "tags": ["a","b"] }');
    const two = JSON.parse('{"tags":["a","b"],"amount":12.50,"to":"ops@example.com"}');
    expect(packetDigest(one)).toBe(packetDigest(two));
    expect(packetDigest(one)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("changes when any value changes, including array order", () => {
    expect(packetDigest({ a: [1, 2] })).not.toBe(packetDigest({ a: [2, 1] }));
    expect(packetDigest({ a: "1" })).not.toBe(packetDigest({ a: 1 }));
  });

  it("matches a digest computed by hand", () => {
    // printf '%s' '{"a":1,"b":"é"}' | sha256sum
    expect(packetDigest({ b: "é", a: 1 })).toBe(
      "sha256:09ad9fd2fb648cb2f62141215828ea00a62c299db05d20aa9ade2f527a301cc6",
    );
  });

  it("keys actions by run, version and operation", () => {
    expect(actionKey("run-7", 4, "send-invoice")).toBe("run-7:4:send-invoice");
  });
});
