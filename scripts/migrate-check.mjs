// CI: the PostgreSQL schema is the generated twin, and each provider's migrations match its schema.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { pendingSchemaDiff, schemas } from "../src/store/schema-engine/migrations.mjs";
import { postgresSchemaText } from "./prisma-schemas.mjs";

let failed = false;
if (fs.readFileSync(schemas.postgresql, "utf8") !== postgresSchemaText()) {
  console.error("prisma/postgres/schema.prisma is out of date: run npm run migrate:create -- <name>");
  failed = true;
}
const sqliteFile = path.join(os.tmpdir(), `holdfast-check-${crypto.randomUUID()}.db`);
const sqliteDiff = await pendingSchemaDiff(`file:${sqliteFile}`);
fs.rmSync(sqliteFile, { force: true });
const admin = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const db = `holdfast_check_${crypto.randomUUID().replace(/-/g, "")}`;
const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`CREATE DATABASE ${db}`);
let pgDiff;
try {
  const url = new URL(admin);
  url.pathname = `/${db}`;
  pgDiff = await pendingSchemaDiff(url.toString());
} finally {
  await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await client.end();
}
for (const [provider, diff] of [
  ["sqlite", sqliteDiff],
  ["postgresql", pgDiff],
]) {
  if (diff) {
    console.error(`${provider} migrations do not match the schema:\n${diff}`);
    failed = true;
  } else console.log(`${provider} migrations match the schema`);
}
process.exit(failed ? 1 : 0);
