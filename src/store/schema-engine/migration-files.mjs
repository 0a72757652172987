// The schemas and their migration folders, apart from the engine (engine.mjs loads its wasm on import, which
// a reader of these files does not need: prisma-generate at every start, the applied-migrations check).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The two schemas: SQLite is the source, PostgreSQL its generated twin. */
export const schemas = {
  sqlite: path.join(root, "prisma/schema.prisma"),
  postgresql: path.join(root, "prisma/postgres/schema.prisma"),
};

export const providerOfUrl = (url) => (/^postgres(ql)?:/.test(url) ? "postgresql" : "sqlite");

/** The migrations folder of a schema, with each migration's name and script (null when it has none). */
export function migrationFolders(schemaPath) {
  const dir = path.join(path.dirname(schemaPath), "migrations");
  fs.mkdirSync(dir, { recursive: true });
  return {
    dir,
    migrations: fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .map((name) => {
        const file = path.join(dir, name, "migration.sql");
        return { name, script: fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null };
      }),
  };
}
