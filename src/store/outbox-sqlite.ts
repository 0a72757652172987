import crypto from "node:crypto";
import { type ControlRecord, type ControlState, type HoldLevel, NOT_RUNNING } from "../policy/control";
import {
  type Claim,
  type ClaimOptions,
  claimExcludedAgents,
  type OutboxItem,
  type OutboxKind,
  type OutboxState,
} from "./outbox";
import { fromSqliteTime, type Sql, type SqliteDirect, sqliteTime } from "./sqlite-direct";

/**
 * The delivery hot path on SQLite (a single writer) through prepared statements: the same rules as the
 * portable functions in outbox.ts, in one synchronous transaction each. PostgreSQL keeps its SKIP LOCKED
 * claim (outbox-claim-pg.ts) and Prisma for the marks.
 */

const DUE = `"state" IN ('PLANNED', 'DISPATCHED') AND "nextAttemptAt" <= ? AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ?)`;

const CLAIM_SQL = `
UPDATE "OutboxItem" SET "leaseToken" = ?, "leaseAttemptId" = ?, "leaseExpiresAt" = ?, "updatedAt" = ?
WHERE "id" IN (
  SELECT "id" FROM "OutboxItem"
  WHERE ${DUE}
    AND "agentId" NOT IN (SELECT value FROM json_each(?))
    AND "tenantId" NOT IN (SELECT value FROM json_each(?))
  ORDER BY "nextAttemptAt", "createdAt", "id"
  LIMIT ?
)
RETURNING *`;

/**
 * Takes one lease token on up to `limit` due items, in due order (then planning time, then key: a release's
 * occurrence keys sort by due time, so "all" goes out in due order). Committed before any network call.
 */
export async function claimDueSqlite(sqlite: SqliteDirect, options: ClaimOptions): Promise<Claim[]> {
  const at = sqliteTime(options.now);
  const leaseToken = crypto.randomUUID();
  const rows = await sqlite.atomically(
    (sql) =>
      sql(CLAIM_SQL).all(
        leaseToken,
        leaseToken,
        sqliteTime(new Date(options.now.getTime() + options.leaseMs)),
        at,
        at,
        at,
        JSON.stringify(claimExcludedAgents(options)),
        JSON.stringify(options.excludeTenants),
        options.limit,
      ) as OutboxRow[],
  );
  // RETURNING comes in no particular order: put the batch back in claim order.
  rows.sort(
    (a, b) => compare(a.nextAttemptAt, b.nextAttemptAt) || compare(a.createdAt, b.createdAt) || compare(a.id, b.id),
  );
  return rows.map((row) => claimOf(row, leaseToken));
}

const DISPATCH_SQL = `UPDATE "OutboxItem" SET "state" = 'DISPATCHED', "attempts" = "attempts" + 1, "lastAttemptAt" = ?,
  "firstDispatchedAt" = COALESCE("firstDispatchedAt", ?), "updatedAt" = ? WHERE "id" = ? AND "leaseToken" = ?`;

/** DISPATCHED for a wave, persisted before any send; returns the claims whose lease still held. */
export async function markDispatchedSqlite(sqlite: SqliteDirect, claims: Claim[], now: Date): Promise<Claim[]> {
  const at = sqliteTime(now);
  return sqlite.atomically((sql) =>
    claims.filter((c) => sql(DISPATCH_SQL).run(at, at, at, c.item.id, c.leaseToken).changes === 1),
  );
}

const ACKNOWLEDGE_SQL = `UPDATE "OutboxItem" SET "state" = 'ACKNOWLEDGED', "lastResult" = ?, "leaseToken" = NULL,
  "leaseExpiresAt" = NULL, "updatedAt" = ? WHERE "id" = ? AND "leaseToken" = ?`;

/** Acknowledgements of a wave in one transaction; items whose lease moved on are left alone. */
export async function markAcknowledgedSqlite(
  sqlite: SqliteDirect,
  claims: Claim[],
  result: string,
  now: Date,
): Promise<void> {
  const at = sqliteTime(now);
  await sqlite.atomically((sql) => {
    for (const c of claims) sql(ACKNOWLEDGE_SQL).run(result, at, c.item.id, c.leaseToken);
  });
}

export type ScopedControl = ControlRecord & { scope: string; tenantId: string; agentId: string | null };

/** The states other than RUNNING, as a list the `state` index can seek (`<> 'RUNNING'` reads every record). */
const NOT_RUNNING_SQL = `(${NOT_RUNNING.map((state) => `'${state}'`).join(", ")})`;

/** Control records: the given scopes, or with `scopes` null every one that is not RUNNING. */
export async function readControlsSqlite(
  sqlite: SqliteDirect,
  scopes: string[] | null,
): Promise<Map<string, ScopedControl>> {
  if (scopes !== null) return sqlite.read((sql) => controlsIn(sql, scopes));
  const rows = await sqlite.read((sql) => sql(`SELECT * FROM "Control" WHERE "state" IN ${NOT_RUNNING_SQL}`).all());
  return controlMap(rows as ControlRow[]);
}

/** The control records of the given scopes, by scope: the gate's input, read inside the caller's transaction. */
export function controlsIn(sql: Sql, scopes: string[]): Map<string, ScopedControl> {
  const rows = sql(`SELECT * FROM "Control" WHERE "scope" IN (SELECT value FROM json_each(?))`).all(
    JSON.stringify([...new Set(scopes)]),
  );
  return controlMap(rows as ControlRow[]);
}

const controlMap = (rows: ControlRow[]) => new Map(rows.map((row) => [row.scope, controlRecordOf(row)]));

interface ControlRow {
  scope: string;
  tenantId: string;
  agentId: string | null;
  state: string;
  holdLevel: string;
  reason: string | null;
  setBy: string | null;
  setAt: string | null;
  until: string | null;
}

const controlRecordOf = (row: ControlRow): ScopedControl => ({
  scope: row.scope,
  tenantId: row.tenantId,
  agentId: row.agentId,
  state: row.state as ControlState,
  holdLevel: row.holdLevel as HoldLevel,
  reason: row.reason,
  setBy: row.setBy,
  setAt: fromSqliteTime(row.setAt),
  until: fromSqliteTime(row.until),
});

/** A claim on an outbox row as SQLite returns it (the row carries `leaseToken`), with a fresh attempt id. */
const claimOf = (row: OutboxRow, leaseToken: string): Claim => ({
  item: outboxItemOf(row),
  leaseToken,
  attemptId: crypto.randomUUID(),
});

/** OutboxItem as SQLite returns it: DateTime columns are ISO text. */
type OutboxRow = Omit<OutboxItem, OutboxDate> & {
  [K in OutboxDate]: OutboxItem[K] extends Date ? string : string | null;
};
type OutboxDate =
  | "leaseExpiresAt"
  | "nextAttemptAt"
  | "firstDispatchedAt"
  | "lastAttemptAt"
  | "observedAt"
  | "createdAt";

const outboxItemOf = (row: OutboxRow): OutboxItem => ({
  ...row,
  kind: row.kind as OutboxKind,
  state: row.state as OutboxState,
  leaseExpiresAt: fromSqliteTime(row.leaseExpiresAt),
  nextAttemptAt: new Date(row.nextAttemptAt),
  firstDispatchedAt: fromSqliteTime(row.firstDispatchedAt),
  lastAttemptAt: fromSqliteTime(row.lastAttemptAt),
  observedAt: fromSqliteTime(row.observedAt),
  createdAt: new Date(row.createdAt),
});

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
