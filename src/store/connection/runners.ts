import type pg from "pg";
import { inTransaction, runOn } from "./postgres-direct";
import {
  type Dialect,
  driveAsync,
  driveSync,
  oneStatement,
  type Param,
  POSTGRES,
  type Query,
  type RawQueries,
  RowsParam,
  SQLITE,
  type SqlRunner,
} from "./sql";
import type { SqliteDirect } from "./sqlite-direct";
import { sqliteTime } from "./sqlite-direct";

const sqliteParam = (p: Param): unknown =>
  p instanceof Date
    ? sqliteTime(p)
    : p instanceof RowsParam
      ? p.json()
      : Array.isArray(p)
        ? JSON.stringify(p)
        : typeof p === "boolean"
          ? Number(p)
          : p;
const sqliteParams = (params: readonly Param[]): unknown[] => params.map(sqliteParam);

/**
 * SQLite: a write step is one immediate, synchronous transaction of cached prepared statements on Prisma's
 * own connection (sqlite-direct.ts), so nothing else runs on the connection until it commits.
 */
export function sqliteRunner(sqlite: SqliteDirect): SqlRunner {
  const execute = (sql: (text: string) => import("better-sqlite3").Statement) => (q: Query) => {
    const statement = sql(q.text);
    const params = sqliteParams(q.params);
    return q.mode === "rows" ? statement.all(...params) : statement.run(...params).changes;
  };
  return {
    dialect: SQLITE,
    write: (step) => sqlite.atomically((sql) => driveSync(step(SQLITE), execute(sql))),
    read: (step) => sqlite.read((sql) => driveSync(step(SQLITE), execute(sql))),
    statement: (step) => sqlite.atomically((sql) => driveSync(oneStatement(step(SQLITE)), execute(sql))),
    within: (tx, step) =>
      driveAsync(
        step(SQLITE),
        throughPrisma(tx, SQLITE, (t) => t, sqliteParams),
      ),
  };
}

/** A list goes as a text array (`POSTGRES.list`). */
const postgresParam = (p: Param): unknown => (p instanceof Date ? p.toISOString() : p);
/** A rows parameter is one text array per column (`POSTGRES.rowsOf`). */
const postgresParams = (params: readonly Param[]): unknown[] =>
  params.flatMap((p) => (p instanceof RowsParam ? p.columns() : [postgresParam(p)]));

/** `?` placeholders become `$1`, `$2`, ...: the steps' SQL text is written once for both databases. */
const numbered = new Map<string, string>();
function postgresText(text: string): string {
  let out = numbered.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    numbered.set(text, out);
  }
  return out;
}

/** Runs a step's queries through Prisma's raw queries (a transaction's, or the client's own). */
const throughPrisma =
  (raw: RawQueries, _d: Dialect, text: (t: string) => string, toParams: (p: readonly Param[]) => unknown[]) =>
  (q: Query) => {
    const params = toParams(q.params);
    return q.mode === "rows"
      ? raw.$queryRawUnsafe(text(q.text), ...params)
      : raw.$executeRawUnsafe(text(q.text), ...params);
  };

/**
 * PostgreSQL: a write step is one transaction on a client of the pool, through the driver directly
 * (postgres-direct.ts); a step inside a Prisma transaction the caller holds runs through that transaction.
 */
export function postgresRunner(pool: pg.Pool): SqlRunner {
  return {
    dialect: POSTGRES,
    write: (step) =>
      inTransaction(pool, (client) => driveAsync(step(POSTGRES), runOn(client, postgresText, postgresParams))),
    read: (step) => driveAsync(step(POSTGRES), runOn(pool, postgresText, postgresParams)),
    // One statement is its own transaction: no BEGIN and COMMIT round trips around it.
    statement: (step) => driveAsync(oneStatement(step(POSTGRES)), runOn(pool, postgresText, postgresParams)),
    within: (tx, step) => driveAsync(step(POSTGRES), throughPrisma(tx, POSTGRES, postgresText, postgresParams)),
  };
}
