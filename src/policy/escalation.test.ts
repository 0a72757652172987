import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EscalationPolicy, type LedgerEntry, nextStep, snapshotPolicy, stateAfterPing } from "./escalation";
import { afterQuietHours, inQuietHours } from "./quiet-hours";

const MIN = 60_000;
const T0 = new Date("2026-12-03T08:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * MIN);
const POLICY: EscalationPolicy = {
  levels: [
    { afterMs: 10 * MIN, notify: ["acme:bob"] },
    { afterMs: 60 * MIN, notify: ["acme:ada"] },
  ],
  repeatMs: 30 * MIN,
  quietHours: null,
};

describe("nextStep", () => {
  it("level 1 after the item's delay, then reminders, then level 2 an hour after level 1", () => {
    expect(nextStep(POLICY, T0, [], null, at(9))).toMatchObject({ kind: "wait", quiet: false });
    expect(nextStep(POLICY, T0, [], null, at(10))).toEqual({
      kind: "send",
      step: { level: 1, repeat: 0, dueAt: at(10) },
    });
    const l1: LedgerEntry[] = [{ level: 1, repeat: 0, sentAt: at(11) }];
    expect(nextStep(POLICY, T0, l1, null, at(41))).toMatchObject({ kind: "send", step: { level: 1, repeat: 1 } });
    const l1r: LedgerEntry[] = [...l1, { level: 1, repeat: 1, sentAt: at(41) }];
    // 71 min: the second reminder and level 2 fall due together; the level wins.
    expect(nextStep(POLICY, T0, l1r, null, at(71))).toMatchObject({ kind: "send", step: { level: 2, repeat: 0 } });
  });

  it("an acknowledge at the current level stops its reminders, not the next level", () => {
    const l1: LedgerEntry[] = [{ level: 1, repeat: 0, sentAt: at(11) }];
    expect(nextStep(POLICY, T0, l1, 1, at(45))).toMatchObject({ kind: "wait", step: { level: 2 } });
    expect(nextStep(POLICY, T0, l1, 1, at(71))).toMatchObject({ kind: "send", step: { level: 2, repeat: 0 } });
    expect(stateAfterPing(1, 1)).toBe("acknowledged");
    expect(stateAfterPing(2, 1)).toBe("open");
  });

  it("the last level without repeats is done; no levels at all is done", () => {
    const once = { ...POLICY, repeatMs: 0 };
    expect(
      nextStep(
        once,
        T0,
        [
          { level: 1, repeat: 0, sentAt: at(10) },
          { level: 2, repeat: 0, sentAt: at(70) },
        ],
        null,
        at(999),
      ),
    ).toEqual({ kind: "done" });
    expect(nextStep({ ...POLICY, levels: [] }, T0, [], null, at(999))).toEqual({ kind: "done" });
  });

  it("quiet hours hold a due ping until the window ends", () => {
    const quiet = { ...POLICY, quietHours: { tz: "UTC", from: "08:05", to: "08:30" } };
    expect(nextStep(quiet, T0, [], null, at(11))).toEqual({
      kind: "wait",
      step: { level: 1, repeat: 0, dueAt: at(10) },
      until: at(30),
      quiet: true,
    });
    expect(nextStep(quiet, T0, [], null, at(30))).toMatchObject({ kind: "send" });
  });

  it("never sends a step that is already in the ledger, nor a level before the one sent (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 2 }), { nil: null }),
        (tickMinutes, ack) => {
          const ledger: LedgerEntry[] = [];
          for (const minute of [...tickMinutes].sort((a, b) => a - b)) {
            const next = nextStep(POLICY, T0, ledger, ack, at(minute));
            if (next.kind !== "send") continue;
            const { level, repeat } = next.step;
            expect(ledger.some((e) => e.level === level && e.repeat === repeat)).toBe(false);
            expect(level).toBeGreaterThanOrEqual(Math.max(0, ...ledger.map((e) => e.level)));
            expect(next.step.dueAt.getTime()).toBeLessThanOrEqual(at(minute).getTime());
            ledger.push({ level, repeat, sentAt: at(minute) });
          }
        },
      ),
    );
  });
});

describe("snapshotPolicy", () => {
  const settings = {
    delays: { approval: 4 * 60 * MIN, paused: 24 * 60 * MIN, review: 60 * MIN, delivery: 60 * MIN },
    levels: [
      { afterMs: null, notify: ["secondaryManager"] },
      { afterMs: 24 * 60 * MIN, notify: ["admins"] },
    ],
    repeatMs: 0,
    quietHours: null,
  };
  const resolve = (names: string[]) => names.map((n) => `acme:${n}`);

  it("level 1 waits the run's own escalateAfter, else the kind's delay; roles become user ids", () => {
    expect(snapshotPolicy(settings, "approval", 5 * MIN, resolve).levels[0]).toEqual({
      afterMs: 5 * MIN,
      notify: ["acme:secondaryManager"],
    });
    expect(snapshotPolicy(settings, "approval", null, resolve).levels[0]!.afterMs).toBe(4 * 60 * MIN);
    expect(snapshotPolicy(settings, "review", null, resolve).levels.map((l) => l.afterMs)).toEqual([
      60 * MIN,
      24 * 60 * MIN,
    ]);
  });
});

describe("quiet hours", () => {
  it("a window across midnight, in the configured zone", () => {
    const q = { tz: "Europe/Berlin", from: "22:00", to: "07:00" };
    // 21:30 UTC is 22:30 in Berlin in December (UTC+1): quiet until 06:00 UTC.
    expect(inQuietHours(q, new Date("2026-12-03T21:30:00Z"))).toBe(true);
    expect(afterQuietHours(q, new Date("2026-12-03T21:30:00Z"))).toEqual(new Date("2026-12-04T06:00:00Z"));
    expect(inQuietHours(q, new Date("2026-12-04T06:00:00Z"))).toBe(false);
    expect(afterQuietHours(q, new Date("2026-12-03T12:00:00Z"))).toEqual(new Date("2026-12-03T12:00:00Z"));
    expect(afterQuietHours(null, T0)).toEqual(T0);
  });
});
