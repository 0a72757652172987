import { rows, type SqlRunner } from "./sql";
import type { StoreOptions } from "./statement-hooks";

export type { Db, Tx } from "./db";
export type { StatementHook, StoreOptions } from "./statement-hooks";

import type { Db } from "./db";

export { type Provider, providerOf } from "./database-url";

import { providerOf } from "./database-url";

/**
 * The store, chosen once per database in `openStore`: Prisma for the ordinary reads and writes (the same API on
 * both), and `sql` for the hot path's portable steps (connection/sql.ts), which each database runs its own way.
 * Nothing outside `src/store/connection` and this file knows which database it is.
 */
export interface Store {
  db: Db;
  sql: SqlRunner;
  close(): Promise<void>;
}

/** One round trip to the database (the health check). */
export async function pingDatabase(store: Store): Promise<void> {
  await store.sql.read(function* () {
    yield* rows("SELECT 1 AS ok");
  });
}

/**
 * Opens the store for a database URL. Each database's driver, Prisma adapter and generated client are imported
 * here, on first use, so a process loads one database's stack, not both (4-10 MiB of RSS less on SQLite, 1-5 on
 * PostgreSQL: docs/performance.md).
 */
export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  if (providerOf(databaseUrl) === "postgresql") {
    const { openPostgresStore } = await import("./postgres-store");
    return openPostgresStore(databaseUrl, options);
  }
  const { openSqliteStore } = await import("./sqlite-store");
  return openSqliteStore(databaseUrl, options);
}
