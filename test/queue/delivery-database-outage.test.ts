import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { deliveryContext } from "../../src/queue/delivery/options";
import { sendWaves } from "../../src/queue/delivery/waves";
import { openStore, type Store } from "../../src/store/connection/client";
import { syncDirectory } from "../../src/store/directory/directory";
import { claimDueItems } from "../../src/store/outbox/claim";
import { findOutboxItem } from "../../src/store/outbox/marks";
import { planDelivery } from "../../src/store/outbox/plan";
import { exampleDirectory } from "../support/agent-stand-in";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { EXAMPLE_CONFIG } from "../support/harness";
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-postgres";

const log = pino({ level: "silent" });
const AGENT = "acme:ops-agent";

/**
 * PostgreSQL going away in the middle of a delivery, on a server of the test's own. Before, an answer that
 * arrived while the database was down was lost (the item stayed DISPATCHED under its lease, its lane shut
 * until the lease ran out, then counted as uncertain), and a round cut by the outage kept its unsent items
 * leased just as long: ticks did not come back for up to 30 s after the database did.
 * (SQLite is a file in the process: it has no outage of this kind.)
 */
describe("deliveries across a PostgreSQL outage", () => {
  let server: PrivatePostgres;
  let store: Store;
  let receiver: EffectReceiver;
  beforeEach(async () => {
    server = await startPrivatePostgres();
    store = await openStore(await server.createDatabase());
    await syncDirectory(store, await exampleDirectory(EXAMPLE_CONFIG)); // the gate holds agents it does not know
    receiver = await startEffectReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await store.close().catch(() => {});
    await server.destroy();
  });

  const plan = (id: string) =>
    planDelivery(
      store,
      {
        id,
        kind: "action",
        tenantId: "acme",
        agentId: AGENT,
        destination: `${receiver.url}/effects`,
        contract: "none",
        payload: { id },
      },
      new Date(),
    );

  /** Every due item, under a 30 s lease (as the delivery loop's own claim would take them). */
  const claimAll = () =>
    claimDueItems(store, { now: new Date(), limit: 10, leaseMs: 30_000, excludeAgents: [], excludeTenants: [] });

  it("writes an answer received while the database was down once it is back, and the lane moves on at once", async () => {
    await plan("a:1");
    receiver.behave = (_call, index) => (index === 0 ? { kind: "apply-then-hold", ms: 2_500 } : { kind: "ok" });
    const loop = createDeliveryLoop({ store, log, pollMs: 100 });
    loop.start();
    await receiver.waitForCalls(1, 10_000);
    await server.stop(); // the destination answers 200 while the database is down
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await server.start();
    const backAt = Date.now();
    await plan("a:2");
    await receiver.waitForCalls(2, 10_000);
    const lag = Date.now() - backAt;
    await loop.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["a:1", "a:2"]);
    expect(await findOutboxItem(store.db, "a:1")).toMatchObject({
      state: "ACKNOWLEDGED",
      attempts: 1,
      leaseToken: null,
    });
    expect(lag).toBeLessThan(10_000); // the lease (30 s) did not have to run out
  }, 60_000);

  it("gives back the leases of a round the outage cut, as soon as the database answers", async () => {
    for (const id of ["b:1", "b:2", "b:3"]) await plan(id);
    const claims = await claimAll();
    expect(claims).toHaveLength(3);
    await server.stop();
    const ctx = deliveryContext({ store, log, leaseMs: 30_000 });
    const sending = sendWaves(ctx, claims);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await server.start();
    const backAt = Date.now();
    await sending;
    expect(Date.now() - backAt).toBeLessThan(10_000);
    for (const id of ["b:1", "b:2", "b:3"])
      expect(await findOutboxItem(store.db, id)).toMatchObject({ state: "PLANNED", attempts: 0, leaseToken: null });
    expect(receiver.calls).toHaveLength(0);
    await ctx.transport.close?.();
  }, 60_000);

  it("keeps a wave's answers when the database goes before the next wave's write, and writes them once it is back", async () => {
    for (const id of ["c:1", "c:2"]) await plan(id);
    const claims = await claimAll();
    expect(claims).toHaveLength(2); // one lane: c:1 in the first wave, c:2 in the second
    receiver.behave = () => ({ kind: "apply-then-hold", ms: 2_500 });
    const ctx = deliveryContext({ store, log, leaseMs: 30_000 });
    const sending = sendWaves(ctx, claims);
    await receiver.waitForCalls(1, 10_000);
    await server.stop(); // c:1 is answered 200 while the database is down; the second wave's gate read fails
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await server.start();
    await sending;
    expect(receiver.calls.map((c) => c.key)).toEqual(["c:1"]);
    expect(await findOutboxItem(store.db, "c:1")).toMatchObject({
      state: "ACKNOWLEDGED",
      attempts: 1,
      leaseToken: null,
    });
    expect(await findOutboxItem(store.db, "c:2")).toMatchObject({ state: "PLANNED", attempts: 0, leaseToken: null });
    await ctx.transport.close?.();
  }, 60_000);
});
