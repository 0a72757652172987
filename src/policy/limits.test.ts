import { describe, expect, it } from "vitest";
import { findNul, isWithinUntil, jsonDeeperThan } from "./limits";

describe("input limits", () => {
  it("measures JSON depth without parsing, ignoring brackets inside strings", () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(jsonDeeperThan(deep(64), 64)).toBe(false);
    expect(jsonDeeperThan(deep(65), 64)).toBe(true);
    expect(jsonDeeperThan(`{"a":"${"[".repeat(100)}"}`, 64)).toBe(false);
    expect(jsonDeeperThan(`{"a":"\\"${"{".repeat(100)}"}`, 64)).toBe(false);
  });

  it("finds NUL in keys and values at any depth", () => {
    expect(findNul({ a: [1, { b: "x\u0000" }] })).toEqual(["a", 1, "b"]);
    expect(findNul({ "k\u0000": 1 })).toEqual(["k\u0000"]);
    expect(findNul({ a: "fine", b: ["\u0001"] })).toBeNull();
  });

  it("an until past year 9999, or not a time at all, is out of bounds", () => {
    expect(isWithinUntil(new Date("9999-12-31T00:00:00Z"))).toBe(true);
    expect(isWithinUntil(new Date(Date.UTC(10000, 0, 1)))).toBe(false);
    expect(isWithinUntil(new Date(Number.NaN))).toBe(false);
  });
});
