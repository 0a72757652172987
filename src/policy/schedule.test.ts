import { describe, expect, it } from "vitest";
import {
  anchorOffset,
  dueTimesBetween,
  isValidCron,
  isValidTimeZone,
  nextDueAfter,
  parseEvery,
  slotFor,
  tickDueTimes,
} from "./schedule";

const t = (iso: string) => new Date(iso);

describe("cadence", () => {
  it("parses every as a duration or ms, refusing tiny or unparsable values", () => {
    expect(parseEvery("15m")).toBe(900_000);
    expect(parseEvery(200)).toBe(200);
    expect(parseEvery(10)).toBeNull();
    expect(parseEvery("soon")).toBeNull();
  });

  it("validates cron patterns and time zones", () => {
    expect(isValidCron("0 9 * * 1-5", "Europe/Berlin")).toBe(true);
    expect(isValidCron("not cron")).toBe(false);
    expect(isValidTimeZone("Europe/Berlin")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus")).toBe(false);
  });

  it("lists epoch-aligned every slots in (after, upTo]", () => {
    const slots = dueTimesBetween(
      { kind: "every", everyMs: 60_000 },
      t("2026-12-01T09:00:00Z"),
      t("2026-12-01T09:03:30Z"),
    );
    expect(slots.map((d) => d.toISOString())).toEqual([
      "2026-12-01T09:01:00.000Z",
      "2026-12-01T09:02:00.000Z",
      "2026-12-01T09:03:00.000Z",
    ]);
  });

  it("lists cron slots in the trigger's time zone, and keeps only the newest past the limit", () => {
    const cadence = { kind: "cron" as const, pattern: "0 9 * * *", tz: "Europe/Berlin" };
    const slots = dueTimesBetween(cadence, t("2026-12-01T00:00:00Z"), t("2026-12-04T00:00:00Z"));
    expect(slots.map((d) => d.toISOString())).toEqual([
      "2026-12-01T08:00:00.000Z",
      "2026-12-02T08:00:00.000Z",
      "2026-12-03T08:00:00.000Z",
    ]);
    expect(dueTimesBetween(cadence, t("2026-12-01T00:00:00Z"), t("2026-12-04T00:00:00Z"), 2)).toHaveLength(2);
  });

  it("maps a tick to its aligned slot and fills a slot a late scheduler stepped over", () => {
    const every = { kind: "every" as const, everyMs: 200 };
    expect(slotFor(every, 1_000_090).getTime()).toBe(1_000_000);
    expect(tickDueTimes(every, new Date(1_000_000), new Date(1_000_400)).current.map((d) => d.getTime())).toEqual([
      1_000_200, 1_000_400,
    ]);
    const outage = tickDueTimes(every, new Date(1_000_000), new Date(1_002_000));
    expect(outage.current.map((d) => d.getTime())).toEqual([1_002_000]);
    expect(outage.missed).toHaveLength(9);
  });
});

describe("every slots on a documented anchor", () => {
  const every10s = { kind: "every" as const, everyMs: 10_000 };

  it("names the slot at or before a tick, never a later one (a due time is never after its send)", () => {
    // Fired 2.8 s before a round-up would have named the next slot: the due time stays the one passed.
    expect(slotFor(every10s, Date.parse("2026-12-01T09:03:37.220Z")).toISOString()).toBe("2026-12-01T09:03:30.000Z");
    expect(slotFor(every10s, Date.parse("2026-12-01T09:03:40.000Z")).toISOString()).toBe("2026-12-01T09:03:40.000Z");
  });

  it("aligns to the caller's anchor: slots are anchor + k * every, before and after it", () => {
    const offsetMs = anchorOffset(10_000, t("2026-12-01T09:03:37.180Z"));
    expect(offsetMs).toBe(7_180);
    const anchored = { ...every10s, offsetMs };
    expect(nextDueAfter(anchored, t("2026-12-01T09:03:43.000Z")).toISOString()).toBe("2026-12-01T09:03:47.180Z");
    expect(slotFor(anchored, Date.parse("2026-12-01T09:03:57.300Z")).toISOString()).toBe("2026-12-01T09:03:57.180Z");
    const slots = dueTimesBetween(anchored, t("2026-12-01T09:03:00Z"), t("2026-12-01T09:03:30Z"));
    expect(slots.map((d) => d.toISOString())).toEqual([
      "2026-12-01T09:03:07.180Z",
      "2026-12-01T09:03:17.180Z",
      "2026-12-01T09:03:27.180Z",
    ]);
    expect(anchorOffset(10_000, t("1969-12-31T23:59:58.000Z"))).toBe(8_000);
  });

  it("shows the next due time after now on the epoch's grid by default (15 minutes: :00, :15, :30, :45)", () => {
    const quarter = { kind: "every" as const, everyMs: 900_000 };
    expect(nextDueAfter(quarter, t("2026-12-01T09:07:30Z")).toISOString()).toBe("2026-12-01T09:15:00.000Z");
    expect(nextDueAfter(every10s, t("2026-12-01T09:03:43Z")).toISOString()).toBe("2026-12-01T09:03:50.000Z");
  });

  it("counts cron due times in the trigger's zone across a daylight-saving change", () => {
    const cadence = { kind: "cron" as const, pattern: "30 9 * * *", tz: "America/New_York" };
    // 2026-11-01 is the end of daylight saving time in New York: 09:30 is 13:30Z before and 14:30Z after.
    expect(nextDueAfter(cadence, t("2026-10-31T14:00:00Z")).toISOString()).toBe("2026-11-01T14:30:00.000Z");
    expect(nextDueAfter(cadence, t("2026-10-30T12:00:00Z")).toISOString()).toBe("2026-10-30T13:30:00.000Z");
    expect(slotFor(cadence, Date.parse("2026-11-01T14:30:00.004Z")).toISOString()).toBe("2026-11-01T14:30:00.000Z");
  });
});
