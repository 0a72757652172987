import fs from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteFileOf } from "../../src/store/connection/database-url";
import { settleDrainOf } from "../../src/store/control/drain";
import { countHeldWorkOf, findOldestWaits } from "../../src/store/held/counts";
import { heldActions } from "../../src/store/held/resume-ledger";
import { AGENT_INDEXED } from "../../src/store/outbox/agent-index";
import { insertOutboxRows, type OutboxInsert } from "../../src/store/outbox/insert";
import { leaseAtPlan } from "../../src/store/outbox/lease-at-plan";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";

const T = new Date("2026-12-01T10:00:00.000Z");
const A1 = "acme:agent-1";
const A2 = "acme:agent-2";
const later = (ms: number) => new Date(T.getTime() + ms);

/** The agent's pause record while its drain waits for what is in flight. */
const DRAINING = {
  scope: `agent:${A1}`,
  tenantId: "acme",
  agentId: A1,
  state: "DRAINING",
  holdLevel: "member",
  reason: null,
  setBy: null,
  setAt: T,
  until: null,
  version: 1,
  drainDeadline: later(120_000),
} as const;

/** One outbox row of `agentId`, planned `ms` after T. */
const row = (id: string, agentId: string, ms: number, kind: "action" | "trigger" = "action"): OutboxInsert => ({
  row: {
    id,
    kind,
    tenantId: "acme",
    agentId,
    destination: `http://127.0.0.1:9/${id}`,
    contract: "none",
    payload: "{}",
  },
  at: later(ms),
});

it("the schema's (agentId, state) index holds the rows of the states the store's agent reads repeat", () => {
  const schema = fs.readFileSync(new URL("../../prisma/schema.prisma", import.meta.url), "utf8");
  const index = /@@index\(\[agentId, state\], where: raw\("((?:[^"\\]|\\.)*)"\)\)/.exec(schema);
  expect(index?.[1]?.replaceAll('\\"', '"')).toBe(AGENT_INDEXED);
});

/**
 * The `(agentId, state)` index of OutboxItem holds open rows only, so a delivery's marks touch few of its pages
 * (docs/performance.md). Every read of an agent's items still answers as before, and goes through it.
 */
describe.each(PROVIDERS)("an agent's outbox reads on %s", (provider) => {
  let db: TestDatabase;
  const statements: string[] = [];
  beforeEach(async () => {
    statements.length = 0;
    db = await createTestDatabase(provider, { onStatement: (sql) => statements.push(sql) });
    const leased = { token: "t-1", expiresAt: later(60_000) };
    await db.store.sql.write((d) =>
      insertOutboxRows(d, [
        row("done-1", A1, 0),
        row("done-2", A1, 1),
        row("held-1", A1, 2),
        row("held-2", A1, 3),
        row("retry-1", A1, 4),
        row("review-1", A1, 5),
        row("failed-1", A1, 6),
        { ...row("sent-1", A1, 7, "trigger"), lease: leased },
        row("held-3", A2, 8),
      ]),
    );
    const outbox = db.store.db.outboxItem;
    await outbox.updateMany({ where: { id: { startsWith: "done-" } }, data: { state: "ACKNOWLEDGED" } });
    await outbox.updateMany({ where: { id: "retry-1" }, data: { attempts: 1 } });
    await outbox.updateMany({ where: { id: "review-1" }, data: { state: "NEEDS_REVIEW" } });
    await outbox.updateMany({ where: { id: "failed-1" }, data: { state: "FAILED" } });
  });
  afterEach(() => db.drop());

  it("answers as before", async () => {
    const held = await countHeldWorkOf(db.store, [A1, A2]);
    expect(held.get(A1)).toMatchObject({ outboxActions: 2, retrying: 1, needsReview: 1 });
    expect(held.get(A2)).toMatchObject({ outboxActions: 1, retrying: 0, needsReview: 0 });
    const oldest = await findOldestWaits(db.store, A1);
    expect(oldest.undelivered).toEqual({
      id: "held-1",
      destination: expect.any(String),
      state: "PLANNED",
      since: later(2),
    });
    expect((await heldActions(db.store, A1)).map((a) => [a.id, a.createdAt])).toEqual([
      ["held-1", later(2)],
      ["held-2", later(3)],
      ["retry-1", later(4)],
    ]);
    // The leased DISPATCHED row is in flight until its lease ends.
    expect((await settleDrainOf(db.store, DRAINING, later(1_000))).step).toBe("wait");
    // A fresh delivery is leased as it is planned only into a lane with nothing open (held-1's is not).
    const planned = [{ ...row("new-1", A1, 9).row, destination: "http://127.0.0.1:9/held-1" }, row("new-2", A2, 9).row];
    const claims = await db.store.sql.write(function* (d) {
      const plan = yield* leaseAtPlan(d, planned, later(9), { leaseMs: 1_000, limit: 10 });
      yield* plan.insert(d, planned, later(9));
      return plan.claims;
    });
    expect(claims.map((c) => c.item.id)).toEqual(["new-2"]);
  });

  /**
   * SQLite is asked for the plan of each statement; PostgreSQL for the generic plan of each as a prepared
   * statement (the store's statements are named ones, which PostgreSQL may plan once for every value), with
   * sequential scans turned off, since a table of a few rows is read whole whatever its indexes.
   */
  it("reads an agent's rows through its index", async () => {
    await countHeldWorkOf(db.store, [A1, A2]);
    await findOldestWaits(db.store, A1);
    await heldActions(db.store, A1);
    await settleDrainOf(db.store, { ...DRAINING, agentId: A1 }, later(1_000));
    await db.store.sql.read((d) => leaseAtPlan(d, [row("new-1", A1, 9).row], later(9), { leaseMs: 1_000, limit: 10 }));
    const byAgent = [...new Set(statements.filter((s) => /FROM "OutboxItem"/.test(s) && /"agentId" (=|IN)/.test(s)))];
    expect(byAgent.length).toBeGreaterThanOrEqual(5);
    for (const text of byAgent) expect(await planOf(db, text), text).toContain("OutboxItem_agentId_state_idx");
  });
});

async function planOf(db: TestDatabase, text: string): Promise<string> {
  if (db.provider === "sqlite") {
    const sqlite = new Database(sqliteFileOf(db.url), { readonly: true });
    try {
      const nulls = Array.from({ length: (text.match(/\?/g) ?? []).length }, () => null);
      const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...nulls) as Array<{ detail: string }>;
      return plan.map((p) => p.detail).join("; ");
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query("SET plan_cache_mode = force_generic_plan");
    await client.query("SET enable_seqscan = off");
    await client.query(`PREPARE agent_read AS ${text}`);
    const params = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const nulls = Array.from({ length: params }, () => "NULL").join(", ");
    const plan = await client.query(`EXPLAIN EXECUTE agent_read${params ? `(${nulls})` : ""}`);
    return plan.rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("; ");
  } finally {
    await client.end();
  }
}
