import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentId, tenantScope } from "../../src/policy/ids";
import { runRelease } from "../../src/queue/held/run-release";
import { recordMissed } from "../../src/store/held/occurrences";
import { openRelease, releaseNextBatch } from "../../src/store/held/releases";
import { type StoredTrigger, upsertTrigger } from "../../src/store/held/triggers";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const ACME = agentId("acme", "ops-agent");
const GLOBEX = agentId("globex", "globex-agent");
const NOW = new Date("2026-12-01T12:00:00Z");
const minutesAgo = (n: number) => new Date(NOW.getTime() - n * 60_000);

describe.each(PROVIDERS)("what a release takes, on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider, () => NOW);
  });
  afterEach(() => h.close());

  const trigger = (tenantId: string, agent: string, key: string, misfire: "all" | "coalesce") =>
    upsertTrigger(
      h.ctx.store.db,
      {
        tenantId,
        agentId: agent,
        key,
        everyMs: 60_000,
        cron: null,
        tz: null,
        payload: { key },
        destination: `http://127.0.0.1:9/${key}`,
        misfire,
        contract: "none",
      },
      minutesAgo(120),
    );
  const hold = (t: StoredTrigger, minutes: number[]) =>
    recordMissed(h.ctx.store, { trigger: t, missed: minutes.map(minutesAgo), held: true, now: NOW });
  const open = (tenantId: string, agent: string | null) =>
    h.ctx.store.db.$transaction((tx) =>
      openRelease(tx, { tenantId, agentId: agent, requestedBy: "recovery", heldSince: null, now: NOW }),
    );
  const deps = { store: () => h.ctx.store, log: pino({ level: "silent" }), now: () => NOW, planned: () => {} };

  it("a release of one agent takes only that agent's rows, never a paused tenant's", async () => {
    await h.ctx.store.db.control.update({ where: { scope: tenantScope("acme") }, data: { state: "PAUSED" } });
    await hold(await trigger("acme", ACME, "a", "coalesce"), [5, 4, 3]);
    await hold(await trigger("globex", GLOBEX, "g", "coalesce"), [5, 4]);
    const releaseId = await open("globex", GLOBEX);
    const run = await runRelease({ ...deps, store: h.ctx.store, instanceId: "one" }, releaseId);
    expect(run).toEqual({ released: 2, skipped: 0 });
    const acme = await h.ctx.store.db.occurrence.findMany({ where: { agentId: ACME } });
    expect(acme.map((o) => o.state)).toEqual(["HELD", "HELD", "HELD"]);
    const planned = await h.ctx.store.db.outboxItem.findMany();
    expect(planned.map((i) => i.agentId)).toEqual([GLOBEX]);
  });

  it("a tenant-wide release checks each agent's own gate and leaves a paused agent's rows held", async () => {
    await h.ctx.store.db.control.update({ where: { scope: `agent:${ACME}` }, data: { state: "PAUSED" } });
    await hold(await trigger("acme", ACME, "a", "all"), [3]);
    const releaseId = await open("acme", null);
    const run = await runRelease({ ...deps, store: h.ctx.store, instanceId: "one" }, releaseId);
    expect(run).toEqual({ released: 0, skipped: 0 });
    expect(await h.ctx.store.db.occurrence.count({ where: { state: "HELD" } })).toBe(1);
  });

  it("rows that arrive after a trigger's coalesced delivery was planned go into a later delivery", async () => {
    const t = await trigger("acme", ACME, "c", "coalesce");
    await hold(t, [9, 8, 7]);
    const releaseId = await open("acme", ACME);
    const gated = new Set<string>();
    expect(await releaseNextBatch(h.ctx.store, releaseId, gated, 10, NOW)).toMatchObject({ released: 3, planned: 1 });
    await hold(t, [6, 5]); // recorded HELD by a tick that read the gate before the resume committed
    expect(await releaseNextBatch(h.ctx.store, releaseId, gated, 10, NOW)).toMatchObject({ released: 2, planned: 1 });
    expect(await releaseNextBatch(h.ctx.store, releaseId, gated, 10, NOW)).toMatchObject({ kind: "finished" });
    const items = await h.ctx.store.db.outboxItem.findMany({ orderBy: { id: "asc" } });
    expect(items.map((i) => i.id)).toEqual([`${ACME}:c:release:${releaseId}`, `${ACME}:c:release:${releaseId}:2`]);
    // Every released due time is carried by exactly the delivery it was marked into.
    const rows = await h.ctx.store.db.occurrence.findMany({ where: { state: "RELEASED" } });
    const carried = new Map(items.map((i) => [i.id, JSON.parse(i.payload).dueTimes as string[]]));
    for (const row of rows) expect(carried.get(row.outboxId!)).toContain(row.dueAt.toISOString());
    expect([...carried.values()].flat()).toHaveLength(rows.length);
  });

  it("one release is worked by one holder at a time", async () => {
    await hold(await trigger("acme", ACME, "a", "all"), [5, 4, 3, 2]);
    const releaseId = await open("acme", ACME);
    let inStep = 0;
    let most = 0;
    const afterBatch = async () => {
      most = Math.max(most, ++inStep);
      await new Promise((r) => setTimeout(r, 50));
      inStep--;
    };
    const both = await Promise.all(
      ["one", "two"].map((instanceId) =>
        runRelease({ ...deps, store: h.ctx.store, instanceId, afterBatch, triggersPerStep: 1 }, releaseId),
      ),
    );
    expect(both.filter((r) => r === "held-elsewhere")).toHaveLength(1);
    expect(most).toBe(1);
    expect(await h.ctx.store.db.outboxItem.count()).toBe(4);
  });
});
