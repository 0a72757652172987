import { describe, expect, test } from "vitest";
import { DEFAULT_PAUSE_REASON, parsePauseArgs, parseUntil } from "./pause-args";

const now = new Date("2026-11-30T12:00:00Z");

describe("parsePauseArgs", () => {
  test("reason with an absolute date: start of that day, UTC", () => {
    expect(parsePauseArgs("vacation until 2026-12-14", now)).toEqual({
      ok: true,
      reason: "vacation",
      until: new Date("2026-12-14T00:00:00Z"),
    });
  });

  test("a trailing duration is the until", () => {
    expect(parsePauseArgs("deploy 2h", now)).toEqual({
      ok: true,
      reason: "deploy",
      until: new Date("2026-11-30T14:00:00Z"),
    });
  });

  test("a trailing duration in seconds is the until too, not part of the reason", () => {
    expect(parsePauseArgs("x 90s", now)).toEqual({ ok: true, reason: "x", until: new Date("2026-11-30T12:01:30Z") });
  });

  test("compound durations after until", () => {
    const parsed = parsePauseArgs("big migration until 1h30m", now);
    expect(parsed).toEqual({ ok: true, reason: "big migration", until: new Date("2026-11-30T13:30:00Z") });
  });

  test("no words: default reason, no until", () => {
    expect(parsePauseArgs("   ", now)).toEqual({ ok: true, reason: DEFAULT_PAUSE_REASON, until: null });
  });

  test("a reason only", () => {
    expect(parsePauseArgs("waiting for legal", now)).toEqual({ ok: true, reason: "waiting for legal", until: null });
  });

  test("numbers that are not durations stay in the reason", () => {
    expect(parsePauseArgs("incident 4521", now)).toEqual({ ok: true, reason: "incident 4521", until: null });
  });

  test("until with nothing or nonsense after it is refused", () => {
    expect(parsePauseArgs("vacation until", now)).toEqual({ ok: false, code: "invalid_until" });
    expect(parsePauseArgs("vacation until next week", now)).toEqual({ ok: false, code: "invalid_until" });
    expect(parsePauseArgs("vacation until 2026-13-45", now)).toEqual({ ok: false, code: "invalid_until" });
  });

  test("a past until is refused", () => {
    expect(parsePauseArgs("vacation until 2026-01-01", now)).toEqual({ ok: false, code: "until_in_past" });
  });
});

describe("parseUntil", () => {
  test("times without an offset are UTC; offsets are honoured", () => {
    expect(parseUntil("2026-12-14T09:30", now)).toEqual(new Date("2026-12-14T09:30:00Z"));
    expect(parseUntil("2026-12-14 09:30", now)).toEqual(new Date("2026-12-14T09:30:00Z"));
    expect(parseUntil("2026-12-14T09:30:00+02:00", now)).toEqual(new Date("2026-12-14T07:30:00Z"));
  });

  test("days and weeks", () => {
    expect(parseUntil("1w2d", now)).toEqual(new Date("2026-12-09T12:00:00Z"));
  });
});
