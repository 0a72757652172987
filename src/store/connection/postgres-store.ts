import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PostgresClient } from "../generated/postgresql/client.ts";
import type { Db } from "./db";
import { inTransaction, keepPoolErrorsQuiet, runOn } from "./postgres-direct";
import { throughPrisma } from "./runners";
import { driveAsync, oneStatement, type Param, POSTGRES, RowsParam, type SqlRunner } from "./sql";
import { hookPool, type StoreOptions } from "./statement-hooks";

// Loaded by `openStore` only for a PostgreSQL URL: a SQLite deployment never loads pg, its Prisma adapter or
// the PostgreSQL client.

/** A PostgreSQL store: Prisma over our own pool, and the hot path through the driver on the same pool. */
export function openPostgresStore(databaseUrl: string, options: StoreOptions) {
  // The pool is ours so that its clients can be hooked; Prisma still ends it when it disconnects.
  const pool = new pg.Pool({ connectionString: databaseUrl });
  keepPoolErrorsQuiet(pool);
  if (options.onStatement) hookPool(pool, options.onStatement);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const db = new PostgresClient({ adapter }) as unknown as Db;
  return { db, sql: postgresRunner(pool), close: () => db.$disconnect() };
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
