import crypto from "node:crypto";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentId, releaseLeaseName } from "../../src/policy/ids";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { runRelease } from "../../src/queue/held/run-release";
import { openStore, type Store } from "../../src/store/connection/client";
import { takeLease } from "../../src/store/connection/leases";
import { recordMissed } from "../../src/store/held/occurrences";
import { openRelease } from "../../src/store/held/releases";
import { upsertTrigger } from "../../src/store/held/triggers";
import { planDelivery } from "../../src/store/outbox/plan";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { createHarness, type Harness } from "../support/harness";

const log = pino({ level: "silent" });
const OPS = agentId("acme", "ops-agent");

/** Two stores on one database stand for two bot processes: their own connections, nothing shared in memory. */
describe.each(PROVIDERS)("two processes on one %s database", (provider) => {
  let h: Harness;
  let other: Store;
  let receiver: EffectReceiver;
  beforeEach(async () => {
    h = await createHarness(provider);
    other = await openStore(h.db.url);
    receiver = await startEffectReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await other.close();
    await h.close();
  });

  it("send one lane's items one after another, in lane order, whichever process claims them", async () => {
    const at = new Date();
    const ids = Array.from({ length: 24 }, (_, i) => `lane-${String(i).padStart(3, "0")}`);
    for (const id of ids) {
      const destination = `${receiver.url}/lane`;
      await planDelivery(
        h.ctx.store,
        { id, kind: "trigger", tenantId: "acme", agentId: OPS, destination, contract: "none", payload: {} },
        at,
      );
    }
    let inFlight = 0;
    let most = 0;
    receiver.behave = () => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => inFlight--, 14);
      return { kind: "slow", ms: 15 };
    };
    // Small rounds, so each process comes back for more while the other holds part of the lane.
    const loops = [h.ctx.store, other].map((store) =>
      createDeliveryLoop({ store, log, pollMs: 5, batchSize: 3, roundsInFlight: 2 }),
    );
    for (const loop of loops) loop.start();
    try {
      await receiver.waitForCalls(ids.length, 20_000);
    } finally {
      await Promise.all(loops.map((loop) => loop.stop()));
    }
    expect(receiver.calls.map((c) => c.key)).toEqual(ids);
    expect(most).toBe(1);
  });

  it("another process continues a release whose holder died, within seconds", async () => {
    const trigger = await upsertTrigger(
      h.ctx.store.db,
      {
        tenantId: "acme",
        agentId: OPS,
        key: "all",
        everyMs: 60_000,
        cron: null,
        tz: null,
        payload: {},
        destination: `${receiver.url}/all`,
        misfire: "all",
        contract: "none",
      },
      new Date(Date.now() - 3_600_000),
    );
    const missed = Array.from({ length: 6 }, (_, i) => new Date(Date.now() - (i + 1) * 60_000));
    // Held while the agent is paused; the resume below opens the release in the same transaction.
    const scope = `agent:${OPS}`;
    await h.ctx.store.db.control.update({ where: { scope }, data: { state: "PAUSED" } });
    await recordMissed(h.ctx.store, { trigger, missed, held: true, now: new Date() });
    const now = () => new Date();
    // The other process runs already (its start-up rebuild is behind it) when the first one takes the
    // release, commits one step, and is never heard of again: no BullMQ job tells the other about it.
    const { startHeldRuntime } = await import("../../src/queue/held/runtime");
    const runtime = await startHeldRuntime({
      store: other,
      log,
      now,
      redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      prefix: `hf-takeover-${crypto.randomUUID().slice(0, 8)}`,
      instanceId: "alive",
      autoResume: async () => {},
      reconcileMs: 200,
    });
    const releaseId = await h.ctx.store.db.$transaction(async (tx) => {
      await tx.control.update({ where: { scope }, data: { state: "RUNNING" } });
      return openRelease(tx, {
        tenantId: "acme",
        agentId: OPS,
        requestedBy: "acme:alice",
        heldSince: null,
        now: new Date(),
      });
    });
    // Taken at once, before the other process's next look (every 200 ms) could take it first.
    await takeLease(h.ctx.store, releaseLeaseName(releaseId), "dead", 5_000, new Date());
    void runRelease(
      {
        store: h.ctx.store,
        log,
        now,
        instanceId: "dead",
        planned: () => {},
        triggersPerStep: 1,
        afterBatch: () => new Promise(() => {}),
      },
      releaseId,
    );
    // Once the first process holds the release and committed its step, it is as good as dead.
    for (;;) {
      const lease = await other.db.lease.findUnique({ where: { name: `release:${releaseId}` } });
      const release = await other.db.release.findUniqueOrThrow({ where: { id: releaseId } });
      if (lease?.owner === "dead" && release.released > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const started = Date.now();
    try {
      for (;;) {
        const release = await other.db.release.findUniqueOrThrow({ where: { id: releaseId } });
        if (release.state === "DONE") break;
        if (Date.now() - started > 10_000) throw new Error("the release was not continued within 10 s");
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await runtime.stop();
    }
    expect(await other.db.occurrence.count({ where: { state: "HELD" } })).toBe(0);
  });
});
