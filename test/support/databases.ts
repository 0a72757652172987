import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openStore, type Provider, type Store, type StoreOptions } from "../../src/store/connection/client";
import { migrateDatabase } from "../../src/store/connection/migrate";

export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
export const PROVIDERS: Provider[] = ["sqlite", "postgresql"];

/** Template names follow the migrations, so a schema change gets a fresh template. */
function migrationsHash(): string {
  const hash = crypto.createHash("sha256");
  for (const dir of ["prisma/migrations", "prisma/postgres/migrations"]) {
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name, "migration.sql");
      if (fs.existsSync(file)) hash.update(name).update(fs.readFileSync(file));
    }
  }
  return hash.digest("hex").slice(0, 12);
}

const sqliteTemplate = () => path.join(os.tmpdir(), `holdfast-template-${migrationsHash()}.db`);
const pgTemplate = () => `holdfast_tpl_${migrationsHash()}`;

export function pgUrl(database: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Run once per test run (global setup): migrated templates that each test database is copied from. */
export async function prepareTemplates(): Promise<void> {
  const file = sqliteTemplate();
  if (!fs.existsSync(file)) {
    const scratch = `${file}.${process.pid}.tmp`;
    await migrateDatabase(`file:${scratch}`);
    fs.renameSync(scratch, file);
  }
  const name = pgTemplate();
  const exists = await withAdmin(
    async (c) => (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount,
  );
  if (!exists) {
    const scratch = `${name}_${process.pid}`;
    await withAdmin((c) => c.query(`CREATE DATABASE ${scratch}`));
    await migrateDatabase(pgUrl(scratch));
    await withAdmin((c) => c.query(`ALTER DATABASE ${scratch} RENAME TO ${name}`)).catch(() =>
      withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${scratch}`)),
    );
  }
}

export interface TestDatabase {
  provider: Provider;
  url: string;
  store: Store;
  /** Closes the store and deletes the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own: no test can see another's rows. `options` go to `openStore`. */
export async function createTestDatabase(provider: Provider, options: StoreOptions = {}): Promise<TestDatabase> {
  const id = crypto.randomUUID().replace(/-/g, "").slice(0, 16);
  if (provider === "sqlite") {
    const file = path.join(os.tmpdir(), `holdfast-test-${id}.db`);
    fs.copyFileSync(sqliteTemplate(), file);
    const url = `file:${file}`;
    const store = await openStore(url, options);
    return {
      provider,
      url,
      store,
      async drop() {
        await store.close();
        for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${file}${suffix}`, { force: true });
      },
    };
  }
  const name = `holdfast_test_${id}`;
  // Copies from one template can collide ("source database is being accessed"): retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await withAdmin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${pgTemplate()}`));
      break;
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const url = pgUrl(name);
  const store = await openStore(url, options);
  return {
    provider,
    url,
    store,
    async drop() {
      await store.close();
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
