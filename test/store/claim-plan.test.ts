import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rows, type Step } from "../../src/store/connection/sql";
import { beforeClaim, claimDueItems, claimParams, claimText } from "../../src/store/outbox/claim";
import { insertOutboxRows } from "../../src/store/outbox/insert";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";

const LANES = 300;
const PER_LANE = 10;
const T = new Date("2026-12-01T10:00:00.000Z");

/** `count` planned deliveries, PER_LANE per agent, planned one millisecond apart from `at` on. */
const burst = (prefix: string, count: number, at: Date) =>
  Array.from({ length: count }, (_, i) => ({
    row: {
      id: `${prefix}-${String(i).padStart(5, "0")}`,
      kind: "trigger" as const,
      tenantId: "acme",
      agentId: `acme:agent-${Math.floor(i / PER_LANE) % LANES}`,
      destination: "http://127.0.0.1:9/x",
      contract: "none",
      payload: "{}",
    },
    at: new Date(at.getTime() + i),
  }));

interface PlanNode {
  "Node Type": string;
  "Actual Loops": number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/**
 * A release plans thousands of deliveries at once into an outbox whose statistics were taken when it held a
 * few settled rows (autovacuum analyzes a minute or more later). PostgreSQL's planner then believed the claim's
 * picked rows were one and joined every unfinished row to the lane window again: 0.1-1 s of the database per
 * claim of 500 with 10,000 unfinished (bench/quick.ts c). Since the claim joins each due row to its lane's
 * blockers, the same statistics made it run the blockers' aggregate once per due row (660 ms). Every part of
 * the claim must run once per claim.
 */
describe.each(PROVIDERS)("the claim after a burst on %s", (provider) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(provider);
    // Statistics of a quiet outbox: a few rows, all settled.
    const settled = burst("old", 20, new Date(T.getTime() - 60_000));
    await db.store.sql.write((d) => insertOutboxRows(d, settled));
    await db.store.db.outboxItem.updateMany({ data: { state: "ACKNOWLEDGED" } });
    await db.store.db.$executeRawUnsafe("ANALYZE");
    await db.store.sql.write((d) => insertOutboxRows(d, burst("new", LANES * PER_LANE, T)));
  });
  afterEach(() => db.drop());

  const options = {
    now: new Date(T.getTime() + 60_000),
    limit: 500,
    leaseMs: 5_000,
    excludeAgents: [],
    excludeTenants: [],
  };

  it("runs each part of the claim once, not once per unfinished row", async () => {
    const explain = function* (d: Parameters<typeof claimText>[0]): Step<unknown[]> {
      yield* beforeClaim(d);
      if (d.name === "sqlite") return yield* rows(`EXPLAIN QUERY PLAN ${claimText(d)}`, ...claimParams(options, "t"));
      return yield* rows(`EXPLAIN (ANALYZE, FORMAT JSON) ${claimText(d)}`, ...claimParams(options, "t"));
    };
    const plan = await db.store.sql.write(explain);
    if (provider === "sqlite") {
      // SQLite names a subquery it runs again per row CORRELATED.
      expect((plan as Array<{ detail: string }>).map((p) => p.detail).join("\n")).not.toMatch(/CORRELATED/);
      return;
    }
    const [explained] = plan as Array<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>;
    const root = explained!["QUERY PLAN"][0]!.Plan;
    const all = nodes(root);
    expect(all.map((n) => n["Node Type"])).toContain("Aggregate");
    for (const node of all) expect(node["Actual Loops"], node["Node Type"]).toBe(1);
  });

  it("leases a prefix of every lane, in planning order", async () => {
    const claimed = await claimDueItems(db.store, options);
    expect(claimed.map((c) => c.item.id)).toEqual(burst("new", 500, T).map((b) => b.row.id));
  });
});

/**
 * Which items of a lane wait: everything planned at or after an item of its lane that is in flight (leased) or
 * waiting for a retry; an item planned before such a blocker goes. Another destination is another lane.
 */
describe.each(PROVIDERS)("a claim's lanes on %s", (provider) => {
  let db: TestDatabase;
  afterEach(() => db?.drop());

  it("holds a lane behind an item in flight or waiting for a retry, peers planned at the same moment included", async () => {
    db = await createTestDatabase(provider);
    const planned = (id: string, lane: string, at: number, destination = "http://127.0.0.1:9/x") => ({
      row: {
        id,
        kind: "trigger" as const,
        tenantId: "acme",
        agentId: `acme:${lane}`,
        destination,
        contract: "none",
        payload: "{}",
      },
      at: new Date(T.getTime() + at),
    });
    await db.store.sql.write((d) =>
      insertOutboxRows(d, [
        planned("a1", "a", 0),
        planned("a2", "a", 1),
        planned("a-other", "a", 2, "http://127.0.0.1:9/other"),
        planned("b1", "b", 0),
        planned("b2", "b", 1),
        planned("c1", "c", 0),
        planned("c2", "c", 0),
        planned("d0", "d", 0),
        planned("d1", "d", 5),
        planned("e1", "e", 0),
        planned("e2", "e", 1),
      ]),
    );
    const now = new Date(T.getTime() + 60_000);
    const later = new Date(now.getTime() + 30_000);
    // In flight: a1, c2 (a peer of c1) and d1 (planned after d0). Waiting for a retry: b1.
    await db.store.db.outboxItem.updateMany({
      where: { id: { in: ["a1", "c2", "d1"] } },
      data: { state: "DISPATCHED", leaseToken: "other", leaseExpiresAt: later },
    });
    await db.store.db.outboxItem.updateMany({ where: { id: "b1" }, data: { nextAttemptAt: later } });
    const claimed = await claimDueItems(db.store, {
      now,
      limit: 100,
      leaseMs: 5_000,
      excludeAgents: [],
      excludeTenants: [],
    });
    expect(claimed.map((c) => c.item.id).sort()).toEqual(["a-other", "d0", "e1", "e2"]);
  });
});
