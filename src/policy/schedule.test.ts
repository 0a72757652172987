import { describe, expect, it } from "vitest";
import { dueTimesBetween, isValidCron, isValidTimeZone, parseEvery, slotFor, tickDueTimes } from "./schedule";

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
