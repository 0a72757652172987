// Writes prisma/postgres/schema.prisma from prisma/schema.prisma: only the provider and client output differ.
import fs from "node:fs";
import path from "node:path";
import { schemas } from "../src/store/schema-engine/migration-files.mjs";

export function postgresSchemaText() {
  return fs
    .readFileSync(schemas.sqlite, "utf8")
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output       = "../src/store/generated/sqlite"', 'output       = "../../src/store/generated/postgresql"')
    .replace(
      /^\/\/ Source of truth[^\n]*\n[^\n]*\n/,
      "// GENERATED from ../schema.prisma by scripts/prisma-schemas.mjs. Edit that file, not this one.\n",
    );
}

export function writePostgresSchema() {
  fs.mkdirSync(path.dirname(schemas.postgresql), { recursive: true });
  fs.writeFileSync(schemas.postgresql, postgresSchemaText());
}
