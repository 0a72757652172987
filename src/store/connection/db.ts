import type { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";

/**
 * Both generated clients expose the same models (one schema, two providers), so the store is typed
 * against the SQLite client and the PostgreSQL one is used through the same surface.
 */
export type Db = SqliteClient;
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
