import {
  type Dialect,
  driveAsync,
  driveSync,
  oneStatement,
  type Param,
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

/** Runs a step's queries through Prisma's raw queries (a transaction's, or the client's own). */
export const throughPrisma =
  (raw: RawQueries, _d: Dialect, text: (t: string) => string, toParams: (p: readonly Param[]) => unknown[]) =>
  (q: Query) => {
    const params = toParams(q.params);
    return q.mode === "rows"
      ? raw.$queryRawUnsafe(text(q.text), ...params)
      : raw.$executeRawUnsafe(text(q.text), ...params);
  };
