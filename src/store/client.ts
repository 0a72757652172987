import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client.ts";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";

/**
 * Both generated clients expose the same models (one schema, two providers), so the store is typed
 * against the SQLite client and the PostgreSQL one is used through the same surface.
 */
export type Db = SqliteClient;
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
export type Provider = "sqlite" | "postgresql";

export const providerOf = (databaseUrl: string): Provider =>
  /^postgres(ql)?:/.test(databaseUrl) ? "postgresql" : "sqlite";

export interface Store {
  db: Db;
  provider: Provider;
  close(): Promise<void>;
}

/**
 * WAL with synchronous=NORMAL: a commit survives a killed process (the WAL is in the OS page cache), and
 * writes no longer wait for an fsync each, which made every SQLite write cost milliseconds.
 */
class TunedSqliteAdapter extends PrismaBetterSqlite3 {
  override async connect() {
    const adapter = await super.connect();
    await adapter.executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    return adapter;
  }
}

export function openStore(databaseUrl: string): Store {
  const provider = providerOf(databaseUrl);
  const db =
    provider === "postgresql"
      ? (new PostgresClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) }) as unknown as Db)
      : new SqliteClient({ adapter: new TunedSqliteAdapter({ url: databaseUrl }) });
  return { db, provider, close: () => db.$disconnect() };
}
