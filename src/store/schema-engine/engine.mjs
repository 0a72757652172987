// Shared: load @prisma/schema-engine-wasm and build a migration-aware driver adapter.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const require = createRequire(import.meta.url);

// --- load the wasm engine (Node 20 cannot `import` .wasm as ESM) ---
// Rust panics report their message here (otherwise only "unreachable" is seen).
globalThis.PRISMA_WASM_PANIC_REGISTRY ??= {
  message: "",
  set_message(m) {
    this.message = `RuntimeError: ${m}`;
  },
};
const bgFile = process.env.SE_DIR
  ? path.join(process.env.SE_DIR, "schema_engine_bg.js")
  : require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
const pkgDir = path.dirname(bgFile);
const bg = await import(pathToFileURL(bgFile).href);
const wasmFile = process.env.SCHEMA_ENGINE_WASM ?? path.join(pkgDir, "schema_engine_bg.wasm");
const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(wasmFile)), {
  "./schema_engine_bg.js": bg,
});
bg.__wbg_set_wasm(instance.exports);
instance.exports.__wbindgen_start();

export function providerOf(schemaContent) {
  return /datasource\s+\w+\s*{[^}]*provider\s*=\s*"(\w+)"/s.exec(schemaContent)[1];
}

// The engine reads a partial index's predicate with its name as a double-quoted string, which better-sqlite3
// (built without double-quoted string literals) takes for a column and rejects.
const PARTIAL_INDEX_READ = /^(SELECT sql FROM sqlite_master WHERE type = 'index' AND name = )"((?:[^"]|"")*)"(;?)$/;
const partialIndexRead = (q) => {
  const m = PARTIAL_INDEX_READ.exec(q.sql);
  return m ? { ...q, sql: `${m[1]}'${m[2].replaceAll('""', '"').replaceAll("'", "''")}'${m[3]}` } : q;
};

/**
 * SQLite through better-sqlite3's driver adapter, taught to run the engine's multi-statement scripts and its
 * read of a partial index.
 */
async function sqliteFactory(url) {
  const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
  const sq = new PrismaBetterSqlite3({ url });
  // The engine replays migrations on the shadow DB via executeRaw(script); better-sqlite3's
  // prepare() rejects multi-statement SQL, so fall back to exec() for such scripts.
  const multi = (a) => {
    const orig = a.executeRaw.bind(a);
    a.executeRaw = async (q) => {
      if (q.args.length === 0) {
        try {
          return await orig(q);
        } catch (e) {
          if (!/more than one statement/.test(String(e?.cause?.originalMessage ?? e?.message ?? e))) throw e;
          await a.executeScript(q.sql);
          return 0;
        }
      }
      return orig(q);
    };
    const queryRaw = a.queryRaw.bind(a);
    a.queryRaw = (q) => queryRaw(partialIndexRead(q));
    return a;
  };
  return {
    provider: sq.provider,
    adapterName: sq.adapterName,
    connect: async () => multi(await sq.connect()),
    connectToShadowDb: async () => multi(await sq.connectToShadowDb()),
  };
}

/** PostgreSQL through adapter-pg, with whole scripts, the "char" catalog type, and a shadow database of its own. */
async function postgresFactory(url) {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  // Pass discrete fields, NOT {connectionString}: pg lets connectionString override
  // `database`, so PrismaPg.connectToShadowDb() would otherwise hit the main DB.
  const u = new URL(url);
  const cfg = {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password) || undefined,
    database: u.pathname.slice(1),
  };
  const pg = new PrismaPg(cfg);
  // adapter-pg's executeScript splits on ';' (breaks string literals / plpgsql): send whole script.
  // Its type mapping also rejects the catalog type "char" (OID 18) that the engine's schema
  // describer reads (pg_class.relkind etc.): report it as text (OID 25).
  const whole = (a) => {
    a.executeScript = async (s) => {
      try {
        await a.client.query(s);
      } catch (e) {
        a.onError(e);
      }
    };
    const io = a.performIO.bind(a);
    a.performIO = async (q) => {
      const r = await io(q);
      for (const f of r.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
      return r;
    };
    return a;
  };
  return {
    provider: pg.provider,
    adapterName: pg.adapterName,
    connect: async () => whole(await pg.connect()),
    // Own shadow-DB factory: PrismaPg.connectToShadowDb() (a) follows connectionString, i.e. the
    // MAIN database, when given one, and (b) drops the shadow DB before closing its pool (fails).
    connectToShadowDb: async () => {
      const main = await pg.connect();
      const name = `prisma_migrate_shadow_db_${crypto.randomUUID()}`;
      await main.executeScript(`CREATE DATABASE "${name}"`);
      const shadow = whole(await new PrismaPg({ ...cfg, database: name }).connect());
      const closeShadow = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await closeShadow();
        await main.executeScript(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await main.dispose();
      };
      return shadow;
    },
  };
}

export async function makeFactory(provider, url) {
  if (provider === "sqlite") return sqliteFactory(url);
  if (provider === "postgresql") return postgresFactory(url);
  throw new Error(`unsupported provider ${provider}`);
}

export async function openEngine(schemaFiles, provider, url, log = () => {}) {
  const factory = await makeFactory(provider, url);
  const connections = [];
  const connect = factory.connect;
  factory.connect = async () => {
    const a = await connect();
    connections.push(a);
    return a;
  };
  const engine = await bg.SchemaEngine.new(
    { datamodels: schemaFiles.length ? schemaFiles.map((f) => [f.path, f.content]) : undefined },
    log,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  return { engine, factory, connections };
}
