import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";
import { decideCheckpoint } from "./checkpoint";
import { decideDrain } from "./drain";
import { fingerprint } from "./fingerprint";

const steps = ["START", "WELCOME_SENT", "DOCUMENTS_SIGNED", "COMPLETED"];

describe("decideCheckpoint", () => {
  it("creates a run at the first checkpoint only", () => {
    expect(decideCheckpoint(steps, null, "START")).toEqual({ ok: true, create: true });
    expect(decideCheckpoint(steps, null, "WELCOME_SENT").ok).toBe(false);
  });
  it("accepts exactly the next checkpoint", () => {
    expect(decideCheckpoint(steps, "START", "WELCOME_SENT")).toEqual({ ok: true, create: false });
  });
  it.each([
    ["skips", "START", "DOCUMENTS_SIGNED"],
    ["repeats", "WELCOME_SENT", "WELCOME_SENT"],
    ["goes back", "DOCUMENTS_SIGNED", "START"],
    ["moves past the end", "COMPLETED", "START"],
    ["names an unknown checkpoint", "START", "LUNCH"],
  ])("refuses a move that %s", (_what, from, to) => {
    expect(decideCheckpoint(steps, from, to)).toMatchObject({ ok: false, code: "invalid_transition" });
  });
  it("refuses every move when the agent declares no sequence", () => {
    expect(decideCheckpoint([], null, "START").ok).toBe(false);
  });
});

describe("decideDrain", () => {
  const now = new Date("2026-12-01T09:00:00Z");
  const later = new Date("2026-12-01T09:01:30Z");
  it("completes once nothing is in flight, waits before the deadline, and gives up at it", () => {
    expect(decideDrain({ state: "DRAINING" }, later, 0, now)).toBe("complete");
    expect(decideDrain({ state: "DRAINING" }, later, 2, now)).toBe("wait");
    expect(decideDrain({ state: "DRAINING" }, now, 2, now)).toBe("deadline");
    expect(decideDrain({ state: "PAUSED" }, now, 2, now)).toBe("none");
  });
});

describe("fingerprint", () => {
  it("ignores key order and whitespace, and sees any changed value", () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe('{"a":[1,{"c":3,"d":2}],"b":1}');
    expect(fingerprint({ a: 1, b: 2 })).toBe(fingerprint({ b: 2, a: 1 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
  });
});
