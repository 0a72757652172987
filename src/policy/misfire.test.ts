import { describe, expect, it } from "vitest";
import { occurrenceKey } from "./ids";
import { forecastRelease, planMisfire } from "./misfire";

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, s));
const held = [2, 0, 1].map((s) => ({ id: occurrenceKey("acme:ops", "brief", at(s)), dueAt: at(s) }));
const context = {
  agent: "acme:ops",
  trigger: "brief",
  releaseId: "r1",
  payload: { x: 1 },
  heldSince: at(-10),
  releasedAt: at(30),
};

describe("planMisfire", () => {
  it("coalesces into one delivery keyed by the release, with the count, due times and hold window", () => {
    const plan = planMisfire("coalesce", held, context);
    expect(plan.skipped).toEqual([]);
    expect(plan.deliveries).toHaveLength(1);
    expect(plan.deliveries[0]).toMatchObject({
      key: "acme:ops:brief:release:r1",
      occurrenceIds: [0, 1, 2].map((s) => occurrenceKey("acme:ops", "brief", at(s))),
      payload: {
        missed: 3,
        dueTimes: [0, 1, 2].map((s) => at(s).toISOString()),
        holdWindow: { from: at(-10).toISOString(), to: at(30).toISOString() },
        payload: { x: 1 },
      },
    });
  });

  it("delivers all in due order, each under its own occurrence key", () => {
    const plan = planMisfire("all", held, context);
    expect(plan.deliveries.map((d) => d.key)).toEqual([0, 1, 2].map((s) => occurrenceKey("acme:ops", "brief", at(s))));
  });

  it("skips: nothing delivered, every occurrence recorded as skipped", () => {
    expect(planMisfire("skip", held, context)).toEqual({ deliveries: [], skipped: held.map((o) => o.id).sort() });
  });

  it("plans nothing for nothing held", () => {
    expect(planMisfire("coalesce", [], context)).toEqual({ deliveries: [], skipped: [] });
  });
});

describe("the release forecast", () => {
  it("counts what the misfire policies will send and skip, as planMisfire does", () => {
    const triggers = [
      { misfire: "coalesce" as const, held: 10 },
      { misfire: "coalesce" as const, held: 0 },
      { misfire: "all" as const, held: 3 },
      { misfire: "skip" as const, held: 4 },
    ];
    expect(forecastRelease(triggers)).toEqual({ send: 4, coalesced: 1, skip: 4 });
    const context = {
      agent: "a",
      trigger: "t",
      releaseId: "r",
      payload: null,
      heldSince: null,
      releasedAt: new Date(0),
    };
    const heldOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `o${i}`, dueAt: new Date(i * 1000) }));
    const planned = triggers.map((t) => planMisfire(t.misfire, heldOf(t.held), context));
    expect(planned.reduce((sum, p) => sum + p.deliveries.length, 0)).toBe(4);
    expect(planned.reduce((sum, p) => sum + p.skipped.length, 0)).toBe(4);
  });
});
