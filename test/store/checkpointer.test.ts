import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { startCheckpointer } from "../../src/store/checkpointer";
import { openStore } from "../../src/store/client";
import { migrateDatabase } from "../../src/store/migrate";

/**
 * Rows the database file holds on its own: a copy of it without its WAL sees only checkpointed pages (no
 * table yet counts as none).
 */
function rowsInDatabaseFile(file: string, table: string): number {
  const copy = `${file}.copy-${process.hrtime.bigint()}`;
  fs.copyFileSync(file, copy);
  try {
    const reader = new Database(copy, { readonly: true });
    try {
      return (reader.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
    } catch {
      return 0;
    } finally {
      reader.close();
    }
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe("WAL checkpoints on a thread of their own", () => {
  const dirs: string[] = [];
  const tempFile = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-ckpt-"));
    dirs.push(dir);
    return path.join(dir, "db.sqlite");
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("copies what the writer committed into the database file, while the writer never checkpoints", async () => {
    const file = tempFile();
    const writer = new Database(file);
    writer.pragma("journal_mode = WAL");
    writer.pragma("wal_autocheckpoint = 0");
    writer.exec("CREATE TABLE t (n INTEGER)");
    const checkpointer = startCheckpointer(file, { intervalMs: 50 });
    try {
      const insert = writer.prepare("INSERT INTO t (n) VALUES (?)");
      writer.transaction(() => {
        for (let i = 0; i < 1000; i++) insert.run(i);
      })();
      expect(await eventually(() => rowsInDatabaseFile(file, "t") === 1000)).toBe(true);

      // The writer keeps going; later commits reach the file too.
      writer.transaction(() => {
        for (let i = 0; i < 500; i++) insert.run(i);
      })();
      expect(await eventually(() => rowsInDatabaseFile(file, "t") === 1500)).toBe(true);
    } finally {
      await checkpointer.stop();
      writer.close();
    }
  });

  it("reports a checkpoint that fails, and stops when asked", async () => {
    const file = tempFile();
    fs.writeFileSync(file, "this is not a database");
    const errors: string[] = [];
    const checkpointer = startCheckpointer(file, { intervalMs: 20, onError: (message) => errors.push(message) });
    expect(await eventually(() => errors.length > 0)).toBe(true);
    expect(errors[0]).toMatch(/not a database/);
    await checkpointer.stop();
  });

  it("runs for a store's file, and stops with the store", async () => {
    const file = tempFile();
    await migrateDatabase(`file:${file}`);
    const store = openStore(`file:${file}`);
    await store.db.tenant.create({ data: { id: "acme" } });
    // The store's thread checkpoints once a second; the writer's own backstop is far away.
    expect(await eventually(() => rowsInDatabaseFile(file, "Tenant") === 1, 5000)).toBe(true);
    await store.close();
  });
});
