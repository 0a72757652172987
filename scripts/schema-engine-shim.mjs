#!/usr/bin/env node
// Stand-in for Prisma's native `schema-engine` binary (set PRISMA_SCHEMA_ENGINE_BINARY to this
// file): speaks the same JSON-RPC-over-stdio protocol, backed by @prisma/schema-engine-wasm.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { makeFactory, openEngine, providerOf } from "../src/store/schema-engine/engine.mjs";

const argv = process.argv.slice(2);
const datamodels = [];
let datasource = {};
let cliCmd = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--datamodels") datamodels.push(argv[++i]);
  else if (argv[i] === "--datasource") datasource = JSON.parse(argv[++i]);
  else if (argv[i] === "cli") cliCmd = argv[++i];
  else if (argv[i] === "--version") {
    console.log("schema-engine-wasm-shim");
    process.exit(0);
  }
}
const files = datamodels.map((p) => ({ path: p, content: fs.readFileSync(p, "utf8") }));
const url = datasource.url;
const provider = files.length
  ? providerOf(files[0].content)
  : /^postgres(ql)?:/.test(url ?? "")
    ? "postgresql"
    : "sqlite";
// The CLI skips the first stderr line of one-shot commands, then looks for this JSON error line.
const logErr = (code, message) =>
  process.stderr.write(
    JSON.stringify({ level: "INFO", target: "schema_engine::logger", fields: { message: "schema-engine-wasm shim" } }) +
      "\n" +
      JSON.stringify({ level: "ERROR", target: "schema_engine::logger", fields: { error_code: code, message } }) +
      "\n",
  );

if (cliCmd) {
  // one-shot: can-connect-to-database | create-database
  try {
    if (cliCmd === "create-database" && provider === "postgresql") await createPgDatabase(url);
    else {
      const a = await (await makeFactory(provider, url)).connect();
      await a.queryRaw({ sql: "SELECT 1", args: [], argTypes: [] });
      await a.dispose();
    }
    process.exit(0);
  } catch (e) {
    const msg = String(e?.cause?.originalMessage ?? e?.message ?? e);
    logErr(/does not exist/.test(msg) ? "P1003" : "P1001", msg);
    process.exit(1);
  }
}

async function createPgDatabase(u) {
  const target = new URL(u);
  const db = target.pathname.slice(1);
  target.pathname = "/postgres";
  const a = await (await makeFactory("postgresql", target.toString())).connect();
  try {
    await a.executeScript(`CREATE DATABASE "${db.replace(/"/g, '""')}"`);
  } finally {
    await a.dispose();
  }
  return db;
}

const MIGRATIONS_TABLE_SQLITE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0);`;
let opened;
const engine = async () => {
  opened ??= openEngine(files, provider, url, () => {});
  return (await opened).engine;
};
const isNoMigrationsTable = (e) => e?.code === "P1014" && /_prisma_migrations/.test(e.message);

async function call(method, params) {
  switch (method) {
    case "getDatabaseVersion":
      return (await engine()).version(params);
    case "createDatabase":
      return { databaseName: provider === "postgresql" ? await createPgDatabase(url) : url };
    case "debugPanic":
      throw new Error("debugPanic");
    case "reset":
      if (provider === "sqlite") {
        // wasm reset only DELETEs rows on SQLite: delete the file
        if (opened) {
          const o = await opened;
          o.engine.free();
          for (const c of o.connections) await c.dispose();
          opened = undefined;
        }
        const file = path.resolve(url.replace(/^file:/, ""));
        for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
        return null;
      }
  }
  const eng = await engine();
  if (typeof eng[method] !== "function") throw new Error(`method ${method} not supported by the wasm schema engine`);
  try {
    return await eng[method](params);
  } catch (e) {
    // The wasm SQLite connector reports a missing _prisma_migrations table as P1014 instead of
    // "not initialised" (native behaviour). Emulate the native engine.
    if (!isNoMigrationsTable(e)) throw e;
    if (method === "diagnoseMigrationHistory")
      return { history: null, failedMigrationNames: [], editedMigrationNames: [], hasMigrationsTable: false };
    const a = await (await opened).factory.connect();
    await a.executeScript(MIGRATIONS_TABLE_SQLITE);
    await a.dispose();
    return eng[method](params);
  }
}

// The native engine sends `diff` output to the CLI as a JSON-RPC "print" request.
let printId = 1e9;
const printWaiters = new Map();
const print = (content) =>
  new Promise((resolve) => {
    const id = printId++;
    printWaiters.set(id, resolve);
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "print", params: { content } })}\n`);
  });

let pending = Promise.resolve();
readline
  .createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on("line", (line) => {
    if (!line.trim()) return;
    const req = JSON.parse(line);
    if (!req.method) {
      printWaiters.get(req.id)?.();
      printWaiters.delete(req.id);
      return;
    }
    pending = pending.then(async () => {
      let res;
      try {
        const result = await call(req.method, req.params ?? {});
        if (req.method === "diff" && result?.stdout != null) {
          await print(result.stdout.replace(/\n$/, ""));
          result.stdout = null;
        }
        res = { jsonrpc: "2.0", id: req.id, result: result ?? null };
      } catch (e) {
        const message = String(e?.message ?? e);
        res = {
          jsonrpc: "2.0",
          id: req.id,
          error: {
            code: 4466,
            message: "An error happened. Check the data field for details.",
            data: { is_panic: false, message, meta: {}, ...(e?.code ? { error_code: e.code } : {}) },
          },
        };
      }
      process.stdout.write(`${JSON.stringify(res)}\n`);
    });
  })
  .on("close", async () => {
    await pending;
    try {
      (await opened)?.engine?.free();
    } catch {}
    process.exit(0); // the wasm engine keeps the event loop alive
  });
