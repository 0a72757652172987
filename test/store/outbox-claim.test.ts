import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/connection/client";
import { claimDueItems } from "../../src/store/outbox/claim";
import { findOutboxItem, markDispatchedMany, markSettled } from "../../src/store/outbox/marks";
import { planDelivery } from "../../src/store/outbox/plan";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";

const T = new Date("2026-12-01T10:00:00.000Z");
const LEASE = 5_000;

/**
 * The claim compares the injected clock with timestamp(3) columns. On PostgreSQL that comparison runs in
 * SQL, so it is checked under a session time zone far from UTC as well.
 */
describe.each([...PROVIDERS, "postgresql in America/New_York" as const])("claiming due items on %s", (variant) => {
  let db: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    db = await createTestDatabase(variant === "sqlite" ? "sqlite" : "postgresql");
    store = db.store;
    if (variant === "postgresql in America/New_York") {
      const url = new URL(db.url);
      url.searchParams.set("options", "-c TimeZone=America/New_York");
      store = await openStore(url.toString());
      const [zone] = await store.db.$queryRawUnsafe<Array<{ TimeZone: string }>>("SHOW TimeZone");
      expect(zone?.TimeZone).toBe("America/New_York");
    }
    await planDelivery(
      store,
      {
        id: "k1",
        kind: "action",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        destination: "http://127.0.0.1:9/x",
        contract: "none",
        payload: {},
      },
      new Date(),
    );
    await store.db.outboxItem.update({ where: { id: "k1" }, data: { nextAttemptAt: T } });
  });
  afterEach(async () => {
    if (store !== db.store) await store.close();
    await db.drop();
  });

  const claim = (now: Date, exclude: string[] = []) =>
    claimDueItems(store, { now, limit: 10, leaseMs: LEASE, excludeAgents: exclude, excludeTenants: [] });

  it("claims exactly at the due time, holds the lease to the millisecond, and skips excluded agents", async () => {
    expect(await claim(new Date(T.getTime() - 1))).toHaveLength(0);
    expect(await claim(T, ["acme:ops-agent"])).toHaveLength(0);
    const [first] = await claim(T);
    expect(first?.item.id).toBe("k1");
    const leased = await findOutboxItem(store.db, "k1");
    expect(leased?.leaseToken).toBe(first?.leaseToken);
    expect(leased?.leaseExpiresAt?.toISOString()).toBe(new Date(T.getTime() + LEASE).toISOString());
    expect(await claim(new Date(T.getTime() + LEASE - 1))).toHaveLength(0);
    expect(await claim(new Date(T.getTime() + LEASE))).toHaveLength(0); // expiry is strictly before now
    const [second] = await claim(new Date(T.getTime() + LEASE + 1));
    expect(second?.leaseToken).not.toBe(first?.leaseToken);
  });

  /**
   * The race seen under load on PostgreSQL: a process whose lease ran out settles its item (NEEDS_REVIEW) while
   * another process's claim, which already read the row as claimable, waits for its lock. The claim must
   * re-check the row it writes; before, it leased the settled row and its dispatch sent the action again.
   */
  it("does not lease a row that its previous holder settled while the claim waited for it", async () => {
    const [first] = await claim(T);
    expect(await markDispatchedMany(store, [first!], T)).toHaveLength(1);
    const later = new Date(T.getTime() + LEASE + 1);
    let racing: ReturnType<typeof claim> | null = null;
    if (variant === "sqlite") {
      // One writer at a time: the settle and the claim cannot interleave; the claim comes after it.
      expect(await markSettled(store.db, first!, "NEEDS_REVIEW", "timed out")).toBe(true);
      racing = claim(later);
    } else {
      await store.db.$transaction(async (tx) => {
        expect(await markSettled(tx as typeof store.db, first!, "NEEDS_REVIEW", "timed out")).toBe(true);
        racing = claim(later);
        await untilSomeoneWaitsForALock(store);
      });
    }
    expect(await racing!).toEqual([]);
    const row = await findOutboxItem(store.db, "k1");
    expect(row?.state).toBe("NEEDS_REVIEW");
    expect(row?.leaseToken).toBe(null);
    expect(await markDispatchedMany(store, [first!], later)).toEqual([]);
  });

  it("does not mark a claim DISPATCHED once its lease ran out", async () => {
    const [first] = await claim(T);
    expect(await markDispatchedMany(store, [first!], new Date(T.getTime() + LEASE))).toEqual([]);
    expect((await findOutboxItem(store.db, "k1"))?.state).toBe("PLANNED");
    expect(await markDispatchedMany(store, [first!], new Date(T.getTime() + LEASE - 1))).toHaveLength(1);
  });
});

/** Until a session of the database waits for a row lock: the claim, blocked on the row being settled. */
async function untilSomeoneWaitsForALock(store: Store): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [waiting] = await store.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
    );
    if ((waiting?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the claim never waited for the row lock");
}
