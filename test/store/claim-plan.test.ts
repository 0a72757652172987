import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rows, type Step } from "../../src/store/connection/sql";
import { claimDueItems, claimParams, claimText } from "../../src/store/outbox/claim";
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
 * claim of 500 with 10,000 unfinished (bench/quick.ts c). The window and its pick must run once per claim.
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

  it("runs the lane window once, not once per unfinished row", async () => {
    const explain = function* (d: Parameters<typeof claimText>[0]): Step<unknown[]> {
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
    const windowed = nodes(root).filter((n) => ["WindowAgg", "Limit"].includes(n["Node Type"]));
    expect(windowed.length).toBeGreaterThan(0);
    for (const node of windowed) expect(node["Actual Loops"], node["Node Type"]).toBe(1);
  });

  it("leases a prefix of every lane, in planning order", async () => {
    const claimed = await claimDueItems(db.store, options);
    expect(claimed.map((c) => c.item.id)).toEqual(burst("new", 500, T).map((b) => b.row.id));
  });
});
