import crypto from "node:crypto";
import fs from "node:fs";
import { migrationFolders, schemas } from "../schema-engine/migration-files.mjs";
import { providerOf, sqliteFileOf } from "./database-url";

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

const APPLIED = "SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations";

/**
 * Whether every migration folder is applied already, as the schema engine records it (the name, the sha-256 of
 * its script, finished and not rolled back), with no failed migration besides: one read, instead of the engine's
 * wasm (about 1.5 s and 100 MB of a process of its own) on every start. Anything else, a missing table included,
 * says no, and the engine decides.
 */
export async function migrationsApplied(databaseUrl: string): Promise<boolean> {
  const provider = providerOf(databaseUrl);
  const { migrations } = migrationFolders(schemas[provider]);
  const rows = await (provider === "postgresql" ? postgresRows(databaseUrl) : sqliteRows(databaseUrl)).catch(
    () => null,
  );
  if (rows === null) return false;
  if (rows.some((r) => r.finished_at === null && r.rolled_back_at === null)) return false;
  const applied = new Set(
    rows
      .filter((r) => r.finished_at !== null && r.rolled_back_at === null)
      .map((r) => `${r.migration_name}:${r.checksum}`),
  );
  return migrations.every(
    ({ name, script }) =>
      script !== null && applied.has(`${name}:${crypto.createHash("sha256").update(script).digest("hex")}`),
  );
}

async function sqliteRows(databaseUrl: string): Promise<AppliedRow[] | null> {
  const file = sqliteFileOf(databaseUrl);
  if (!fs.existsSync(file)) return null;
  const { default: Database } = await import("better-sqlite3");
  const database = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return database.prepare(APPLIED).all() as AppliedRow[];
  } finally {
    database.close();
  }
}

async function postgresRows(databaseUrl: string): Promise<AppliedRow[]> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema") ?? "public";
  url.searchParams.delete("schema");
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const quoted = `"${schema.replaceAll('"', '""')}"`;
    return (await client.query<AppliedRow>(APPLIED.replace("_prisma_migrations", `${quoted}._prisma_migrations`))).rows;
  } finally {
    await client.end();
  }
}
