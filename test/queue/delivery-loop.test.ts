import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pauseAgent } from "../../src/bot/app/control/pause";
import { resumeAgent } from "../../src/bot/app/control/resume";
import { NO_METRICS } from "../../src/policy/metrics-sink";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { httpTransport } from "../../src/queue/delivery/http-transport";
import { findAgent, type KnownAgent, type KnownUser } from "../../src/store/directory/directory";
import { claimDueItems } from "../../src/store/outbox/claim";
import { findOutboxItem, markAcknowledged, markDispatchedMany } from "../../src/store/outbox/marks";
import { planDelivery } from "../../src/store/outbox/plan";
import type { Claim } from "../../src/store/outbox/types";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { createHarness, type Harness } from "../support/harness";

const log = pino({ level: "silent" });
const noRetryDelay = { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 };

describe.each(PROVIDERS)("the delivery loop on %s", (provider) => {
  let h: Harness;
  let receiver: EffectReceiver;
  let agent: KnownAgent;
  const user = async (name: string) =>
    (await h.ctx.store.db.user.findUnique({ where: { id: `acme:${name}` } })) as KnownUser;

  beforeEach(async () => {
    h = await createHarness(provider);
    receiver = await startEffectReceiver();
    agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
  });
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  const plan = (id: string, contract = "key-retained 24h") =>
    planDelivery(
      h.ctx.store,
      {
        id,
        kind: "action",
        tenantId: "acme",
        agentId: agent.id,
        destination: `${receiver.url}/effects`,
        contract,
        payload: { id },
      },
      new Date(),
    );
  const drain = async (loop: ReturnType<typeof createDeliveryLoop>) => {
    while ((await loop.runOnce()) > 0);
  };
  const loopOf = (extra: Partial<Parameters<typeof createDeliveryLoop>[0]> = {}) =>
    createDeliveryLoop({ store: h.ctx.store, log, pollMs: 60_000, retry: noRetryDelay, ...extra });

  it("sends each item once with its key as Idempotency-Key and records the acknowledgement", async () => {
    await plan("run-1:1:send");
    await plan("run-1:1:send"); // a retried producer plans nothing new
    const loop = loopOf();
    await drain(loop);
    await loop.stop();
    expect(receiver.calls.map((c) => [c.key, c.body])).toEqual([["run-1:1:send", { id: "run-1:1:send" }]]);
    const item = await findOutboxItem(h.ctx.store.db, "run-1:1:send");
    expect(item).toMatchObject({ state: "ACKNOWLEDGED", attempts: 1, leaseToken: null });
    expect(item?.lastResult).toMatch(/^HTTP 200/);
  });

  it("holds everything while the agent is paused, and sends it after resume", async () => {
    await pauseAgent(h.ctx, { user: await user("alice"), agent, reason: "vacation", until: null });
    await plan("a:1:x");
    const loop = loopOf();
    expect(await loop.runOnce()).toBe(0);
    expect(receiver.calls).toHaveLength(0);
    await resumeAgent(h.ctx, { resumer: { kind: "user", user: await user("alice") }, agent });
    await drain(loop);
    await loop.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["a:1:x"]);
  });

  it("retries an error answer with the same key, boundedly", async () => {
    receiver.behave = (_call, index) => (index < 2 ? { kind: "status", status: 503 } : { kind: "ok" });
    await plan("a:1:retry");
    const loop = loopOf();
    await drain(loop);
    await loop.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["a:1:retry", "a:1:retry", "a:1:retry"]);
    expect(await findOutboxItem(h.ctx.store.db, "a:1:retry")).toMatchObject({ state: "ACKNOWLEDGED", attempts: 3 });

    receiver.behave = () => ({ kind: "status", status: 500 });
    await plan("a:1:doomed");
    const again = loopOf();
    await drain(again);
    await again.stop();
    expect(await findOutboxItem(h.ctx.store.db, "a:1:doomed")).toMatchObject({ state: "FAILED", attempts: 3 });
  });

  it("does not resend blindly after an uncertain outcome when the contract no longer deduplicates", async () => {
    receiver.behave = () => ({ kind: "apply-then-drop" });
    await plan("a:1:none", "none");
    const loop = loopOf();
    await drain(loop);
    await loop.stop();
    expect(receiver.calls).toHaveLength(1);
    expect(receiver.applied.get("a:1:none")).toBe(1);
    const item = await findOutboxItem(h.ctx.store.db, "a:1:none");
    expect(item?.state).toBe("NEEDS_REVIEW");
    expect(item?.lastResult).toMatch(/outcome unknown after attempt 1/);
  });

  it("ignores an acknowledgement that carries a stale lease token", async () => {
    await plan("a:1:lease");
    const db = h.ctx.store.db;
    const t0 = new Date();
    const store = h.ctx.store;
    const [first] = await claimDueItems(store, {
      now: t0,
      limit: 1,
      leaseMs: 1000,
      excludeAgents: [],
      excludeTenants: [],
    });
    await markDispatchedMany(store, [first!], t0);
    // The lease expires and another worker takes the item over.
    const later = new Date(t0.getTime() + 5000);
    const [second] = await claimDueItems(store, {
      now: later,
      limit: 1,
      leaseMs: 1000,
      excludeAgents: [],
      excludeTenants: [],
    });
    expect(second?.leaseToken).not.toBe(first?.leaseToken);
    expect(await markAcknowledged(db, first as Claim, "late")).toBe(false);
    expect((await findOutboxItem(db, "a:1:lease"))?.state).toBe("DISPATCHED");
    expect(await markAcknowledged(db, second as Claim, "HTTP 200")).toBe(true);
  });

  it("counts a 2xx for an attempt whose lease had passed on as a possible duplicate effect", async () => {
    await plan("a:1:twice");
    const store = h.ctx.store;
    const t0 = new Date();
    const claimAt = (now: Date) =>
      claimDueItems(store, { now, limit: 1, leaseMs: 1000, excludeAgents: [], excludeTenants: [] });
    const [first] = await claimAt(t0);
    await markDispatchedMany(store, [first!], t0);
    const [second] = await claimAt(new Date(t0.getTime() + 5000)); // the lease expired: taken over
    expect(second).toBeDefined();
    const counted: string[] = [];
    const metrics = {
      ...NO_METRICS,
      deliveryAttempt: (kind: string, result: string) => counted.push(`attempt:${kind}:${result}`),
      duplicateEffectDetected: () => counted.push("duplicate-effect"),
    };
    const loop = loopOf({ metrics });
    loop.deliver([first!]); // the stale holder still sends, and the destination applies it
    await loop.stop();
    expect(receiver.calls).toHaveLength(1);
    expect(counted).toEqual(["attempt:action:acknowledged", "duplicate-effect"]);
    expect((await findOutboxItem(store.db, "a:1:twice"))?.state).toBe("DISPATCHED"); // the stale ack wrote nothing
  });

  it("lets two workers share the work without sending anything twice", async () => {
    for (let i = 0; i < 60; i++) await plan(`a:${i}:bulk`);
    const loops = [loopOf({ batchSize: 7, transport: httpTransport() }), loopOf({ batchSize: 7 })];
    await Promise.all(loops.map(drain));
    await Promise.all(loops.map((l) => l.stop()));
    expect(receiver.calls).toHaveLength(60);
    expect(new Set(receiver.calls.map((c) => c.key)).size).toBe(60);
  });

  it("keeps a lane in order while rounds overlap: a round never claims an agent another round holds", async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `lane:${String(i).padStart(3, "0")}`);
    for (const key of keys) await plan(key);
    receiver.behave = () => ({ kind: "slow", ms: 15 });
    const loop = loopOf({ batchSize: 4, roundsInFlight: 3, pollMs: 20 });
    loop.start();
    await receiver.waitForCalls(keys.length, 20_000);
    await loop.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(keys);
  });
});
