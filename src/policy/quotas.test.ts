import { describe, expect, it } from "vitest";
import { shortestGapMs } from "./quotas";

const from = new Date("2026-12-01T10:00:00Z");

describe("shortestGapMs", () => {
  it("is the interval of an every cadence", () => {
    expect(shortestGapMs({ kind: "every", everyMs: 50 }, from)).toBe(50);
  });

  it.each([
    ["* * * * * *", 1_000],
    ["*/15 * * * *", 15 * 60_000],
    ["0-5 * * * * *", 1_000], // a burst in each minute is measured by the burst
    ["0 9 * * 1-5", 24 * 3_600_000],
  ])("measures cron %s by its densest part", (pattern, gap) => {
    expect(shortestGapMs({ kind: "cron", pattern }, from)).toBe(gap);
  });
});
