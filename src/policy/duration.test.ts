import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { durationMs, durationWords, parseDurationMs } from "./duration";
import { isUntilDuration, parseUntil } from "./until";

const s = 1_000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const w = 7 * d;

describe("the duration grammar", () => {
  it("reads every unit, alone and added up", () => {
    expect(durationMs("250ms")).toBe(250);
    expect(durationMs("90s")).toBe(90 * s);
    expect(durationMs("15m")).toBe(15 * m);
    expect(durationMs("24h")).toBe(24 * h);
    expect(durationMs("7d")).toBe(7 * d);
    expect(durationMs("1w")).toBe(w);
    expect(durationMs("1h30m")).toBe(90 * m);
    expect(durationMs("1w2d3h4m5s6ms")).toBe(w + 2 * d + 3 * h + 4 * m + 5 * s + 6);
  });

  it("takes fractions, any letter case and spaces between parts", () => {
    expect(durationMs("1.5h")).toBe(90 * m);
    expect(durationMs("2H")).toBe(2 * h);
    expect(durationMs("10MS")).toBe(10);
    expect(durationMs(" 1h 30m ")).toBe(90 * m);
    expect(durationMs("90 s")).toBe(90 * s);
  });

  it("refuses what is not a duration", () => {
    for (const text of ["", "soon", "1y", "h", "1h30", "-5s", "1e3s", "5m s", "1.h", "next week"])
      expect(durationMs(text), text).toBeNull();
  });

  it("takes a bare number as milliseconds only where the environment and the config ask for it", () => {
    expect(parseDurationMs("250")).toBe(250);
    expect(parseDurationMs("1w")).toBe(w);
    expect(parseDurationMs("soon")).toBeNull();
    expect(durationMs("250")).toBeNull();
    expect(isUntilDuration("4521")).toBe(false);
  });

  it("is the sum of its parts, whatever the units and their order", () => {
    const unit = fc.constantFrom("ms", "s", "m", "h", "d", "w", "H", "Ms");
    const part = fc.tuple(fc.nat(10_000), unit);
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), fc.constantFrom("", " "), (parts, gap) => {
        const text = parts.map(([n, u]) => `${n}${u}`).join(gap);
        const sum = parts.reduce((total, [n, u]) => total + n * (durationMs(`1${u}`) ?? Number.NaN), 0);
        expect(durationMs(text)).toBe(sum);
        expect(parseDurationMs(text)).toBe(sum);
      }),
    );
  });

  it("gives a pause's until the same grammar", () => {
    const now = new Date("2026-12-01T12:00:00Z");
    expect(parseUntil("90s", now)).toEqual(new Date("2026-12-01T12:01:30Z"));
    expect(parseUntil("1w", now)).toEqual(new Date("2026-12-08T12:00:00Z"));
    expect(parseUntil("250", now)).toBeNull();
  });
});

describe("a duration in words", () => {
  it("says the two largest whole units", () => {
    const cases: Array<[number, string]> = [
      [900_000, "15 min"],
      [30_000, "30 s"],
      [5_400_000, "1 h 30 min"],
      [172_800_000, "2 d"],
      [250, "250 ms"],
      [90_061_000, "1 d 1 h"],
      [3_600_500, "1 h"],
      [0, "0 s"],
    ];
    for (const [ms, words] of cases) expect(durationWords(ms), String(ms)).toBe(words);
  });
});
