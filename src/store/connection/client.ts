import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { Database } from "better-sqlite3";
import pg from "pg";
import { PrismaClient as PostgresClient } from "../generated/postgresql/client.ts";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { keepPoolErrorsQuiet } from "./postgres-direct";
import { postgresRunner, sqliteRunner } from "./runners";
import { rows, type SqlRunner } from "./sql";
import { SqliteDirect } from "./sqlite-direct";
import { hookPool, hookSqlite, type StatementHook, type StoreOptions } from "./statement-hooks";

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

/**
 * WAL with synchronous=NORMAL: a commit survives a killed process (the WAL is in the OS page cache), and
 * writes no longer wait for an fsync each, which made every SQLite write cost milliseconds. Checkpoints
 * (the fsyncs that remain) every 10,000 pages instead of 1,000: the hot outbox pages are copied once per
 * checkpoint, not once per thousand pages (a tick-claim-dispatch-ack cycle went from about 70 to 58 µs per
 * item); the WAL is cut back to 64 MB afterwards.
 */
class TunedSqliteAdapter extends PrismaBetterSqlite3 {
  connection: Database | null = null;

  constructor(
    config: { url: string },
    private readonly onStatement?: StatementHook,
  ) {
    super(config);
  }

  override async connect() {
    const adapter = await super.connect();
    await adapter.executeScript(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 10000; PRAGMA journal_size_limit = 67108864;",
    );
    this.connection = (adapter as unknown as { client: Database }).client;
    if (this.onStatement) hookSqlite(this.connection, this.onStatement);
    return adapter;
  }
}

/** One round trip to the database (the health check). */
export async function pingDatabase(store: Store): Promise<void> {
  await store.sql.read(function* () {
    yield* rows("SELECT 1 AS ok");
  });
}

export function openStore(databaseUrl: string, options: StoreOptions = {}): Store {
  if (providerOf(databaseUrl) === "postgresql") {
    // The pool is ours so that its clients can be hooked; Prisma still ends it when it disconnects.
    const pool = new pg.Pool({ connectionString: databaseUrl });
    keepPoolErrorsQuiet(pool);
    if (options.onStatement) hookPool(pool, options.onStatement);
    const adapter = new PrismaPg(pool, { disposeExternalPool: true });
    const db = new PostgresClient({ adapter }) as unknown as Db;
    return { db, sql: postgresRunner(pool), close: () => db.$disconnect() };
  }
  const adapter = new TunedSqliteAdapter({ url: databaseUrl }, options.onStatement);
  const db = new SqliteClient({ adapter });
  const sqlite = new SqliteDirect(async () => {
    if (!adapter.connection) await db.$connect();
    if (!adapter.connection) throw new Error("the SQLite connection did not open");
    return adapter.connection;
  });
  return { db, sql: sqliteRunner(sqlite), close: () => db.$disconnect() };
}
