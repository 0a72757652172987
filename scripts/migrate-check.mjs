// CI: the PostgreSQL schema is the generated twin, and each provider's migrations match its schema.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pendingSchemaDiff, schemas } from "../src/store/schema-engine/migrations.mjs";
import { postgresSchemaText } from "./prisma-schemas.mjs";
import { withScratchPostgres } from "./scratch-postgres.mjs";

let failed = false;
if (fs.readFileSync(schemas.postgresql, "utf8") !== postgresSchemaText()) {
  console.error("prisma/postgres/schema.prisma is out of date: run npm run migrate:create -- <name>");
  failed = true;
}
const sqliteFile = path.join(os.tmpdir(), `holdfast-check-${crypto.randomUUID()}.db`);
const sqliteDiff = await pendingSchemaDiff(`file:${sqliteFile}`);
fs.rmSync(sqliteFile, { force: true });
const pgDiff = await withScratchPostgres("holdfast_check", pendingSchemaDiff);
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
