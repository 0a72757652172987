import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimDueItems } from "../../src/store/outbox/claim";
import { findOutboxItem, markWave, NO_ACKNOWLEDGEMENTS } from "../../src/store/outbox/marks";
import { planDelivery } from "../../src/store/outbox/plan";
import type { Claim } from "../../src/store/outbox/types";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";

const T = new Date("2026-12-01T10:00:00.000Z");
const LEASE = 5_000;

/**
 * A delivery wave's one write (store/outbox/marks.ts): the previous wave's plain 200s acknowledged and this
 * wave's claims marked DISPATCHED in one statement, each under its own guard.
 */
describe.each(PROVIDERS)("a delivery wave's write on %s", (provider) => {
  let db: TestDatabase;
  let statements: string[];
  beforeEach(async () => {
    statements = [];
    db = await createTestDatabase(provider, { onStatement: (sql) => statements.push(sql) });
    for (const id of ["k1", "k2"]) {
      await planDelivery(
        db.store,
        {
          id,
          kind: "action",
          tenantId: "acme",
          agentId: "acme:ops-agent",
          destination: "http://127.0.0.1:9/x",
          contract: "none",
          payload: {},
        },
        T,
      );
    }
  });
  afterEach(() => db.drop());

  const claimBoth = async (): Promise<Claim[]> => {
    const claims = await claimDueItems(db.store, {
      now: T,
      limit: 10,
      leaseMs: LEASE,
      excludeAgents: [],
      excludeTenants: [],
    });
    expect(claims.map((c) => c.item.id)).toEqual(["k1", "k2"]);
    return claims;
  };

  it("acknowledges the previous wave and dispatches this one in one statement", async () => {
    const [k1, k2] = await claimBoth();
    expect((await markWave(db.store, NO_ACKNOWLEDGEMENTS, [k1!], T)).dispatched).toEqual([k1]);
    statements.length = 0;
    const written = await markWave(db.store, { claims: [k1!], result: "HTTP 200 at then" }, [k2!], T);
    // One statement, with no BEGIN and COMMIT around it on PostgreSQL.
    expect(statements.filter((s) => !/^\s*(BEGIN|COMMIT)/i.test(s))).toHaveLength(1);
    if (provider === "postgresql") expect(statements).toHaveLength(1);
    expect(written).toEqual({ acknowledged: 1, dispatched: [k2] });
    const first = await findOutboxItem(db.store.db, "k1");
    expect(first).toMatchObject({
      state: "ACKNOWLEDGED",
      lastResult: "HTTP 200 at then",
      leaseToken: null,
      attempts: 1,
    });
    const second = await findOutboxItem(db.store.db, "k2");
    expect(second).toMatchObject({ state: "DISPATCHED", leaseToken: k2!.leaseToken, attempts: 1 });
    expect(second?.firstDispatchedAt?.toISOString()).toBe(T.toISOString());
  });

  it("writes an acknowledgement only under its lease token, and a dispatch only under a live lease", async () => {
    const [k1, k2] = await claimBoth();
    await markWave(db.store, NO_ACKNOWLEDGEMENTS, [k1!], T);
    const stale = { ...k1!, leaseToken: "another attempt's" };
    const late = new Date(T.getTime() + LEASE); // k2's lease has run out
    expect(await markWave(db.store, { claims: [stale], result: "HTTP 200" }, [k2!], late)).toEqual({
      acknowledged: 0,
      dispatched: [],
    });
    expect((await findOutboxItem(db.store.db, "k1"))?.state).toBe("DISPATCHED");
    expect((await findOutboxItem(db.store.db, "k2"))?.state).toBe("PLANNED");
    // The acknowledgement needs the token only: a lease that ran out is still its attempt's.
    expect(await markWave(db.store, { claims: [k1!], result: "HTTP 200" }, [], late)).toEqual({
      acknowledged: 1,
      dispatched: [],
    });
  });
});
