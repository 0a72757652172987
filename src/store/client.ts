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

export function openStore(databaseUrl: string): Store {
  const provider = providerOf(databaseUrl);
  const db =
    provider === "postgresql"
      ? (new PostgresClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) }) as unknown as Db)
      : new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: databaseUrl }) });
  if (provider === "sqlite") void tuneSqlite(db);
  return { db, provider, close: () => db.$disconnect() };
}

/**
 * The adapter holds one connection, so these apply to every later query. WAL lets readers work while one
 * writer commits, and synchronous=NORMAL syncs at checkpoints rather than on every commit: a killed
 * process loses nothing (the WAL is in the OS's hands); only a power cut can lose the newest commits.
 * Without it every outbox step waits for an fsync and delivery runs at a few dozen items a second.
 */
async function tuneSqlite(db: Db): Promise<void> {
  for (const pragma of ["journal_mode = WAL", "synchronous = NORMAL", "busy_timeout = 5000"]) {
    await db.$queryRawUnsafe(`PRAGMA ${pragma}`).catch(() => undefined);
  }
}
