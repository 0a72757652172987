import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * A process opens one database and loads that database's stack only: the other driver (with its Prisma adapter,
 * which imports it, and its generated client) would cost memory for nothing. Checked in a fresh process, where
 * the drivers (CommonJS packages, whichever way they are imported) are listed in the require cache.
 */
const root = path.resolve(import.meta.dirname, "../..");
const script = `
import { createRequire } from "node:module";
import { openStore } from "./src/store/connection/client.ts";
const store = await openStore(process.argv.at(-1));
const loaded = Object.keys(createRequire(import.meta.url).cache);
const drivers = ["better-sqlite3", "pg"].filter((name) => loaded.some((file) => file.includes(\`/node_modules/\${name}/\`)));
await store.close().catch(() => {});
console.log(JSON.stringify(drivers));
`;

async function driversLoadedFor(databaseUrl: string): Promise<string[]> {
  const tsx = path.join(root, "node_modules/.bin/tsx");
  const { stdout } = await promisify(execFile)(tsx, ["--input-type=module", "-e", script, databaseUrl], { cwd: root });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as string[];
}

describe("opening a store", () => {
  it("on PostgreSQL loads pg and not better-sqlite3", async () => {
    // Nothing connects until the store is used, so no server is needed to see what was loaded.
    expect(await driversLoadedFor("postgresql://postgres@127.0.0.1:1/none")).toEqual(["pg"]);
  }, 30_000);

  it("on SQLite loads better-sqlite3 and not pg", async () => {
    expect(await driversLoadedFor("file:/nonexistent-dir/holdfast.db")).toEqual(["better-sqlite3"]);
  }, 30_000);
});
