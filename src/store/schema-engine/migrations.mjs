// Offline migrations: Prisma's own schema engine compiled to WebAssembly, driven directly.
// Used at start (apply), by `npm run migrate:create` and by CI's `npm run migrate:check`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openEngine } from "./engine.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const filters = { externalTables: [], externalEnums: [] };

/** The two schemas: SQLite is the source, PostgreSQL its generated twin. */
export const schemas = {
  sqlite: path.join(root, "prisma/schema.prisma"),
  postgresql: path.join(root, "prisma/postgres/schema.prisma"),
};

export const providerOfUrl = (url) => (/^postgres(ql)?:/.test(url) ? "postgresql" : "sqlite");

function migrationsList(schemaPath) {
  const dir = path.join(path.dirname(schemaPath), "migrations");
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, "migration_lock.toml");
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: fs.existsSync(lock) ? fs.readFileSync(lock, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .map((name) => {
        const file = path.join(dir, name, "migration.sql");
        return {
          path: name,
          migrationFile: {
            path: "migration.sql",
            content: fs.existsSync(file)
              ? { tag: "ok", value: fs.readFileSync(file, "utf8") }
              : { tag: "error", value: "missing migration.sql" },
          },
        };
      }),
  };
}

async function withEngine(url, fn) {
  const provider = providerOfUrl(url);
  const schemaPath = schemas[provider];
  const schema = { files: [{ path: schemaPath, content: fs.readFileSync(schemaPath, "utf8") }] };
  if (provider === "sqlite") {
    const file = url.replace(/^file:/, "");
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  }
  const opened = await openEngine(schema.files, provider, url);
  try {
    return await fn(opened.engine, { schemaPath, schema, provider });
  } finally {
    opened.engine.free();
    for (const c of opened.connections) await c.dispose().catch(() => {});
  }
}

// A fresh SQLite file has no _prisma_migrations table, and the wasm connector reports P1014 instead of
// "not initialised" as the native engine would.
const SQLITE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0);`;

async function ensureMigrationsTable(url) {
  if (providerOfUrl(url) !== "sqlite") return;
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(url.replace(/^file:/, ""));
  try {
    db.exec(SQLITE_MIGRATIONS_TABLE);
  } finally {
    db.close();
  }
}

/** Applies pending migrations; idempotent. Returns the names applied now. */
export async function applyMigrations(url) {
  await ensureMigrationsTable(url);
  return withEngine(url, async (engine, { schemaPath }) => {
    const out = await engine.applyMigrations({ migrationsList: migrationsList(schemaPath), filters });
    return out.appliedMigrationNames;
  });
}

/** SQL that would bring the committed migrations up to the schema ("" when they match). */
export async function pendingSchemaDiff(url) {
  await ensureMigrationsTable(url);
  return withEngine(url, async (engine, { schemaPath, schema }) => {
    const out = await engine.diff({
      from: { tag: "migrations", ...migrationsList(schemaPath) },
      to: { tag: "schemaDatamodel", ...schema },
      script: true,
      exitCode: true,
      filters,
    });
    return out.exitCode === 2 ? (out.stdout ?? "changes") : "";
  });
}

/** Writes a new migration folder for the schema changes, and applies it. */
export async function createMigration(url, name) {
  await ensureMigrationsTable(url);
  return withEngine(url, async (engine, { schemaPath, schema }) => {
    await engine.applyMigrations({ migrationsList: migrationsList(schemaPath), filters });
    const diag = await engine.devDiagnostic({ migrationsList: migrationsList(schemaPath), filters });
    if (diag.action.tag === "reset") throw new Error(`database needs a reset: ${diag.action.reason}`);
    const out = await engine.createMigration({
      draft: false,
      migrationName: name,
      migrationsList: migrationsList(schemaPath),
      schema,
      filters,
    });
    if (out.migrationScript == null) return null;
    const dir = path.join(path.dirname(schemaPath), "migrations", out.generatedMigrationName);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `migration.${out.extension}`), out.migrationScript);
    fs.writeFileSync(
      path.join(path.dirname(schemaPath), "migrations", "migration_lock.toml"),
      `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${out.connectorType}"\n`,
    );
    await engine.applyMigrations({ migrationsList: migrationsList(schemaPath), filters });
    return dir;
  });
}
