import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recoverOrphanedHolds } from "../../src/queue/held/rebuild";
import type { ControlJobs } from "../../src/queue/held/schedules";
import type { Db } from "../../src/store/connection/client";
import { uncoveredHeldAgents } from "../../src/store/held/counts";
import { recordMissed } from "../../src/store/held/occurrences";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";
import { minuteTrigger } from "../support/held-harness";

const AGENT = "acme:ops-agent";
const MIN = 60_000;

/**
 * Held rows whose gate is open and that no release takes (a tick that read the gate just before a resume
 * committed, after that resume's release had finished) get a release of their own from the reconciler.
 */
describe.each(PROVIDERS)("orphaned holds on %s", (provider) => {
  let h: Harness;
  const now = comingDay(9);
  const released: string[] = [];
  const jobs = { release: async (id: string) => void released.push(id) } as ControlJobs;

  beforeEach(async () => {
    released.length = 0;
    h = await createHarness(provider);
    const trigger = await minuteTrigger(h.ctx.store, now);
    // Held while the agent runs: nothing else will take them.
    const missed = [3, 2, 1].map((m) => new Date(now.getTime() - m * MIN));
    await recordMissed(h.ctx.store, { trigger, missed, held: true, now });
  });
  afterEach(() => h.close());

  it("gives a running agent's uncovered held rows one release, and none while that release is open", async () => {
    const deps = { store: h.ctx.store, now: () => now, jobs };
    expect(await recoverOrphanedHolds(deps)).toBe(1);
    const releases = await h.ctx.store.db.release.findMany();
    expect(releases.map((r) => [r.agentId, r.requestedBy, r.state])).toEqual([[AGENT, "recovery", "OPEN"]]);
    expect(released).toEqual([releases[0]!.id]);
    expect(await recoverOrphanedHolds(deps)).toBe(0);
    expect(released).toHaveLength(1);
  });

  // A resume's release opened between the reconciler's reads: read before the held rows, the releases did not
  // show it, and every held agent of the tenant looked uncovered (bench/release-memory.ts opened thousands).
  it("sees a release opened while it reads the held rows as covering them", async () => {
    const db = h.ctx.store.db;
    const resumingMeanwhile = new Proxy(db.occurrence, {
      get(target, key, receiver) {
        if (key !== "groupBy") return Reflect.get(target, key, receiver);
        return async (...args: unknown[]) => {
          const held = await (target.groupBy as (...a: unknown[]) => Promise<unknown>)(...args);
          await db.release.create({ data: { id: "resume-release", tenantId: "acme", requestedBy: "acme:ada" } });
          return held;
        };
      },
    });
    const reading = new Proxy(db, {
      get: (target, key, receiver) => (key === "occurrence" ? resumingMeanwhile : Reflect.get(target, key, receiver)),
    }) as Db;
    expect(await uncoveredHeldAgents(reading)).toEqual([]);
  });
});
