import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { occurrenceKey } from "../../src/policy/ids";
import { catchUpTriggers } from "../../src/queue/held/catch-up";
import { recordMissed } from "../../src/store/held/occurrences";
import { allTriggers, type StoredTrigger, upsertTrigger } from "../../src/store/held/triggers";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";
import { minuteTrigger } from "../support/held-harness";

const AGENT = "acme:ops-agent";
const MIN = 60_000;

describe.each(PROVIDERS)("missed occurrences on %s", (provider) => {
  let h: Harness;
  let trigger: StoredTrigger;
  const now = comingDay(9);
  const missed = [5, 4, 3, 2, 1].map((m) => new Date(now.getTime() - m * MIN));
  const keyOf = (dueAt: Date) => occurrenceKey(AGENT, "t", dueAt);

  beforeEach(async () => {
    h = await createHarness(provider);
    trigger = await minuteTrigger(h.ctx.store, now);
  });
  afterEach(() => h.close());

  it("records the due times not yet recorded, leaves the others, and advances the trigger", async () => {
    await recordMissed(h.ctx.store, { trigger, missed: missed.slice(0, 2), held: true, now });
    const second = await recordMissed(h.ctx.store, { trigger, missed, held: true, now });
    expect(second.recorded).toBe(3);
    const rows = await h.ctx.store.db.occurrence.findMany({
      where: { triggerId: trigger.id },
      orderBy: { dueAt: "asc" },
    });
    expect(rows.map((r) => [r.id, r.state])).toEqual(missed.map((dueAt) => [keyOf(dueAt), "HELD"]));
    const stored = await h.ctx.store.db.trigger.findUniqueOrThrow({ where: { id: trigger.id } });
    expect(stored.lastDueAt).toEqual(missed.at(-1));
  });

  // A catch-up at start races the trigger's first ticks, which record the same due times. Three writers hold
  // one key each, uncommitted, and commit one after another while the catch-up waits on them: the catch-up that
  // read the keys and then inserted failed on each in turn and gave up after three tries (a process's crash).
  it.runIf(provider === "postgresql")("records them while other writers insert some of the same keys", async () => {
    const writers = await Promise.all(
      missed.slice(1, 4).map(async (dueAt) => {
        const client = new pg.Client({ connectionString: h.db.url });
        await client.connect();
        await client.query("BEGIN");
        await client.query(
          `INSERT INTO "Occurrence" ("id", "triggerId", "tenantId", "agentId", "dueAt", "state", "createdAt", "updatedAt")
           VALUES ($1, $2, 'acme', $3, $4, 'HELD', now(), now())`,
          [keyOf(dueAt), trigger.id, AGENT, dueAt],
        );
        return client;
      }),
    );
    const recording = recordMissed(h.ctx.store, { trigger, missed, held: true, now });
    for (const writer of writers) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.query("COMMIT");
      await writer.end();
    }
    expect((await recording).recorded).toBe(2);
    const rows = await h.ctx.store.db.occurrence.findMany({
      where: { triggerId: trigger.id },
      orderBy: { dueAt: "asc" },
    });
    expect(rows.map((r) => r.id)).toEqual(missed.map(keyOf));
  });

  // A start catches up every trigger at once (queue/held/catch-up.ts): one gate read and one write for all.
  it("catches up many triggers at once: each one's rows and last due time, one release per running agent", async () => {
    const paused = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    expect(paused.status).toBe(200);
    const GLOBEX = "globex:globex-agent";
    const triggerOf = (tenantId: string, agentId: string, key: string, registered: Date) =>
      upsertTrigger(
        h.ctx.store.db,
        { ...trigger, tenantId, agentId, key, payload: null, contract: "none" },
        registered,
      );
    const fiveAgo = new Date(now.getTime() - 5.5 * MIN);
    const triggers = [
      trigger, // registered at 08:00, nothing recorded: 08:01 ... 09:00
      await triggerOf("acme", AGENT, "u", fiveAgo),
      await triggerOf("globex", GLOBEX, "g1", fiveAgo),
      await triggerOf("globex", GLOBEX, "g2", fiveAgo),
      await triggerOf("globex", GLOBEX, "fresh", now), // registered now: nothing missed
    ];
    const releases = await catchUpTriggers({ store: h.ctx.store, log: h.ctx.log, now: () => now }, triggers);

    const counts = await h.ctx.store.db.occurrence.groupBy({ by: ["triggerId"], _count: true });
    expect(Object.fromEntries(counts.map((c) => [c.triggerId, c._count]))).toEqual({
      [triggers[0]!.id]: 60,
      [triggers[1]!.id]: 6, // registered 5.5 minutes before 09:00: 08:55 ... 09:00
      [triggers[2]!.id]: 6,
      [triggers[3]!.id]: 6,
    });
    const stored = await h.ctx.store.db.trigger.findMany({ where: { id: { in: triggers.map((t) => t.id) } } });
    const lastDue = new Map(stored.map((t) => [t.id, t.lastDueAt]));
    const lastMinute = new Date(Math.floor(now.getTime() / MIN) * MIN);
    for (const t of triggers.slice(0, 4)) expect(lastDue.get(t.id)).toEqual(lastMinute);
    expect(lastDue.get(triggers[4]!.id)).toBeNull();
    // The paused agent's rows wait for its resume; the running agent gets one release for both its triggers.
    const opened = await h.ctx.store.db.release.findMany({ where: { requestedBy: "recovery" } });
    expect(opened.map((r) => [r.id, r.agentId])).toEqual([[releases[0], GLOBEX]]);
    expect(releases).toHaveLength(1);
    expect(opened[0]!.heldSince).toBeNull(); // g1 and g2 had no due time recorded: where the hold began is unknown
    // A minute later, with that release still open, it takes the new rows too: no second one.
    const later = { store: h.ctx.store, log: h.ctx.log, now: () => new Date(now.getTime() + MIN) };
    expect(await catchUpTriggers(later, await allTriggers(h.ctx.store.db))).toEqual([]);
    expect(await h.ctx.store.db.release.count({ where: { requestedBy: "recovery" } })).toBe(1);
  });
});
