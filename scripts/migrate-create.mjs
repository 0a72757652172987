// usage: npm run migrate:create -- <name>
// Regenerates the PostgreSQL schema, then writes a migration for each provider against scratch databases.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createMigration } from "../src/store/schema-engine/migrations.mjs";
import { writePostgresSchema } from "./prisma-schemas.mjs";

const name = process.argv[2];
if (!name) throw new Error("usage: npm run migrate:create -- <name>");
writePostgresSchema();
const sqliteFile = path.join(os.tmpdir(), `holdfast-migrate-${crypto.randomUUID()}.db`);
console.log("sqlite:", (await createMigration(`file:${sqliteFile}`, name)) ?? "no changes");
fs.rmSync(sqliteFile, { force: true });
const admin = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const db = `holdfast_migrate_${crypto.randomUUID().replace(/-/g, "")}`;
const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`CREATE DATABASE ${db}`);
try {
  const url = new URL(admin);
  url.pathname = `/${db}`;
  console.log("postgresql:", (await createMigration(url.toString(), name)) ?? "no changes");
} finally {
  await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await client.end();
}
process.exit(0); // the wasm engine keeps the event loop alive
