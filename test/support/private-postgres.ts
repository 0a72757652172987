import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { migrateDatabase } from "../../src/store/connection/migrate";
import { freePort } from "./bot-process";

const run = promisify(execFile);
const ROOT = "/usr/lib/postgresql";
/** The newest installed server's binaries (Debian puts each major version under its own directory). */
const BIN = path.join(
  ROOT,
  (fs.existsSync(ROOT) ? fs.readdirSync(ROOT) : [])
    .filter((v) => fs.existsSync(path.join(ROOT, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))[0] ?? "15",
  "bin",
);
/** As root, the server runs as the `postgres` user (it refuses root); otherwise as whoever runs the tests. */
const asServer = (command: string, args: string[]) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, args);

export interface PrivatePostgres {
  /** A connection URL to `database` on this server. */
  url(database: string): string;
  /** A fresh database copied from the migrated template. */
  createDatabase(): Promise<string>;
  /** `pg_ctl stop -m fast` (connections are cut; a transaction in flight is rolled back). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its data directory. */
  destroy(): Promise<void>;
}

/**
 * A PostgreSQL server of the test's own on a temporary data directory (initdb + pg_ctl), so a test can stop
 * and restart it without touching the machine's server. One migrated template; each database is a copy.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-pg-"));
  const data = path.join(dir, "data");
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  await asServer(`${BIN}/initdb`, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const ctl = (...args: string[]) =>
    asServer(`${BIN}/pg_ctl`, ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "30", ...args]);
  const start = () =>
    ctl("-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, "start").then(
      () => {},
    );
  await start();
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url("postgres") });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin("CREATE DATABASE chaos_template");
  await migrateDatabase(url("chaos_template"));
  let n = 0;
  return {
    url,
    async createDatabase() {
      const name = `chaos_${++n}`;
      await admin(`CREATE DATABASE ${name} TEMPLATE chaos_template`);
      return url(name);
    },
    stop: () => ctl("stop", "-m", "fast").then(() => {}),
    start,
    async destroy() {
      await ctl("stop", "-m", "immediate").catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
