import { afterEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";
import { type PrivateRedis, startPrivateRedis } from "../support/redis-server";

const AGENT = "acme:ops-agent";

describe.each(PROVIDERS)("Redis is not the source of truth (%s, a private redis-server)", (provider) => {
  let h: HeldHarness;
  let redis: PrivateRedis;
  afterEach(async () => {
    await h.close();
    await redis.stop();
  });

  const occurrences = (key: string) =>
    h.ctx.store.db.occurrence.findMany({ where: { triggerId: `${AGENT}:${key}` }, orderBy: { dueAt: "asc" } });
  /** Every slot between the first and the last recorded one has exactly one row: nothing lost or doubled. */
  const expectNoGaps = (rows: Array<{ dueAt: Date }>, everyMs: number) => {
    const times = rows.map((r) => r.dueAt.getTime());
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(everyMs);
  };

  it("survives FLUSHALL while paused and a restart: the missed occurrences are recorded and released once", async () => {
    redis = await startPrivateRedis();
    h = await createHeldHarness(provider, { redisUrl: redis.url });
    for (const [key, misfire] of [
      ["al", "all"],
      ["co", "coalesce"],
    ]) {
      await allowTriggerDestinations(h.ctx.store.db, AGENT, [`${h.receiver.url}/${key}`]);
      await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
        key,
        every: 200,
        misfire,
        destination: `${h.receiver.url}/${key}`,
      });
    }
    await h.until(
      () => h.receiver.calls.length,
      (n) => n >= 2,
    );
    await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "maintenance" });
    await h.until(
      () => h.ctx.store.db.occurrence.count({ where: { state: "HELD" } }),
      (n) => n >= 4,
    );

    await h.runtime.stop(); // the process goes away...
    await redis.flushAll(); // ...and Redis loses everything
    await new Promise((r) => setTimeout(r, 700)); // due times pass while nothing runs
    await h.restart();
    const control = await h.call("GET", "/v1/agents/ops-agent/control", "mia");
    expect(control.json.state).toBe("PAUSED");
    await h.until(
      () => occurrences("al"),
      (rows) => rows.at(-1)!.dueAt.getTime() > Date.now() - 300,
    );

    expect((await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {})).status).toBe(200);
    const release = await h.until(
      () => h.ctx.store.db.release.findFirst({ where: { requestedBy: "acme:alice" } }),
      (r) => r?.state === "DONE",
    );
    const released = await h.ctx.store.db.occurrence.findMany({
      where: { releaseId: release!.id },
      orderBy: { dueAt: "asc" },
    });
    const al = released.filter((o) => o.triggerId.endsWith(":al"));
    await h.until(
      () => h.receiver.calls.filter((c) => al.some((o) => o.id === c.key)).length,
      (n) => n === al.length,
    );
    await h.until(
      () => h.receiver.calls.filter((c) => c.key.endsWith(`:release:${release!.id}`)).length,
      (n) => n === 1,
    );
    await new Promise((r) => setTimeout(r, 400));
    await h.call("DELETE", "/v1/agents/ops-agent/triggers/al", "alice");
    await h.call("DELETE", "/v1/agents/ops-agent/triggers/co", "alice");
    expectNoGaps(await occurrences("al"), 200);
    expectNoGaps(await occurrences("co"), 200);
    const keys = h.receiver.calls.map((c) => c.key);
    expect(new Set(keys).size).toBe(keys.length);
    const coalesced = h.receiver.calls.find((c) => c.key.endsWith(`:release:${release!.id}`))!;
    expect((coalesced.body as { missed: number }).missed).toBe(
      released.filter((o) => o.triggerId.endsWith(":co")).length,
    );
  });

  it("notices a FLUSHALL while running and rebuilds its schedules without a restart", async () => {
    redis = await startPrivateRedis();
    h = await createHeldHarness(provider, { redisUrl: redis.url });
    await allowTriggerDestinations(h.ctx.store.db, AGENT, [`${h.receiver.url}/live`]);
    await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "live",
      every: 200,
      misfire: "all",
      destination: `${h.receiver.url}/live`,
    });
    await h.until(
      () => h.receiver.calls.length,
      (n) => n >= 2,
    );
    await redis.flushAll();
    const after = Date.now();
    await h.until(
      () => h.receiver.calls.filter((c) => c.at > after + 600).length,
      (n) => n >= 2,
      5000,
    );
    const rows = await occurrences("live");
    expectNoGaps(rows, 200);
    const keys = h.receiver.calls.map((c) => c.key);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
