import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { Database } from "better-sqlite3";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { sqliteRunner } from "./runners";
import { SqliteDirect } from "./sqlite-direct";
import { hookSqlite, type StatementHook, type StoreOptions } from "./statement-hooks";

// Loaded by `openStore` only for a SQLite URL: a PostgreSQL deployment never loads better-sqlite3, its Prisma
// adapter or the SQLite client.

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

/** A SQLite store: Prisma on one connection, and the hot path's cached statements on that same connection. */
export function openSqliteStore(databaseUrl: string, options: StoreOptions) {
  const adapter = new TunedSqliteAdapter({ url: databaseUrl }, options.onStatement);
  const db = new SqliteClient({ adapter });
  const sqlite = new SqliteDirect(async () => {
    if (!adapter.connection) await db.$connect();
    if (!adapter.connection) throw new Error("the SQLite connection did not open");
    return adapter.connection;
  });
  return { db, sql: sqliteRunner(sqlite), close: () => db.$disconnect() };
}
