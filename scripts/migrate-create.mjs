// usage: npm run migrate:create -- <name>
// Regenerates the PostgreSQL schema, then writes a migration for each provider against scratch databases.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMigration } from "../src/store/schema-engine/migrations.mjs";
import { writePostgresSchema } from "./prisma-schemas.mjs";
import { withScratchPostgres } from "./scratch-postgres.mjs";

const name = process.argv[2];
if (!name) throw new Error("usage: npm run migrate:create -- <name>");
writePostgresSchema();
const sqliteFile = path.join(os.tmpdir(), `holdfast-migrate-${crypto.randomUUID()}.db`);
console.log("sqlite:", (await createMigration(`file:${sqliteFile}`, name)) ?? "no changes");
fs.rmSync(sqliteFile, { force: true });
console.log(
  "postgresql:",
  (await withScratchPostgres("holdfast_migrate", (url) => createMigration(url, name))) ?? "no changes",
);
process.exit(0); // the wasm engine keeps the event loop alive
