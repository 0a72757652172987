// Writes prisma/postgres/schema.prisma from prisma/schema.prisma: only the provider, the client output and
// the partial indexes' predicates (each in the form its database keeps it) differ.
import fs from "node:fs";
import path from "node:path";
import { schemas } from "../src/store/schema-engine/migration-files.mjs";

/**
 * A partial index's predicate as PostgreSQL keeps it (pg_get_expr), which the migration check compares with the
 * schema's text. SQLite keeps the text as written. One form is known: `"column" IN ('A', 'B')`.
 */
function postgresPredicate(raw) {
  const m = /^\\"(\w+)\\" IN \(((?:'\w+'(?:, )?)+)\)$/.exec(raw);
  if (!m) throw new Error(`scripts/prisma-schemas.mjs: teach postgresPredicate this partial index's form: ${raw}`);
  const column = /^[a-z_]+$/.test(m[1]) ? m[1] : `\\"${m[1]}\\"`;
  const values = m[2].split(", ").map((v) => `${v}::text`);
  return `(${column} = ANY (ARRAY[${values.join(", ")}]))`;
}

export function postgresSchemaText() {
  return fs
    .readFileSync(schemas.sqlite, "utf8")
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace(/where: raw\("((?:[^"\\]|\\.)*)"\)/g, (_, raw) => `where: raw("${postgresPredicate(raw)}")`)
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
