import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runRelease } from "../../src/queue/held/run-release";
import { recordMissed } from "../../src/store/held/occurrences";
import { openRecoveryRelease, openRelease } from "../../src/store/held/releases";
import { upsertTrigger } from "../../src/store/held/triggers";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const AGENT = "acme:ops-agent";

describe.each(PROVIDERS)("two releases over the same held rows on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider);
  });
  afterEach(() => h.close());

  it.each(["coalesce", "all"] as const)("plan each %s delivery once, whichever release wins", async (misfire) => {
    const db = h.ctx.store.db;
    const now = comingDay(9);
    for (const key of ["t1", "t2", "t3"]) {
      const trigger = await upsertTrigger(
        db,
        {
          tenantId: "acme",
          agentId: AGENT,
          key,
          everyMs: 60_000,
          cron: null,
          tz: null,
          payload: null,
          destination: "http://127.0.0.1:9/x",
          misfire,
          contract: "none",
        },
        new Date(now.getTime() - 3_600_000),
      );
      const missed = Array.from({ length: 5 }, (_, i) => new Date(now.getTime() - (i + 1) * 60_000));
      await recordMissed(h.ctx.store, { trigger, missed, held: true, now });
    }
    const open = () =>
      db.$transaction((tx) =>
        openRelease(tx, { tenantId: "acme", agentId: AGENT, requestedBy: "acme:alice", heldSince: null, now }),
      );
    const [first, second] = [await open(), await open()];
    expect(await openRecoveryRelease(h.ctx.store, AGENT, "acme", now)).toBeNull(); // they cover the rows already
    const deps = { store: h.ctx.store, log: pino({ level: "silent" }), now: () => now, planned: () => {} };
    const [a, b] = await Promise.all([
      runRelease({ ...deps, instanceId: "one" }, first),
      runRelease({ ...deps, instanceId: "two" }, second),
    ]);
    if (a === "held-elsewhere" || b === "held-elsewhere") throw new Error("each release has a lease of its own");
    expect(a.released + b.released).toBe(15);
    expect(await db.occurrence.count({ where: { state: "HELD" } })).toBe(0);
    const items = await db.outboxItem.findMany();
    expect(items).toHaveLength(misfire === "coalesce" ? 3 : 15);
    const carried = await db.occurrence.groupBy({ by: ["outboxId"], _count: true });
    expect(carried.every((c) => items.some((i) => i.id === c.outboxId))).toBe(true);
  });
});
