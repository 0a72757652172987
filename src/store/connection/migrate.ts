import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { migrationsApplied } from "./applied-migrations";
import { sqliteFileOf } from "./database-url";

const deployScript = fileURLToPath(new URL("../schema-engine/deploy.mjs", import.meta.url));

/** Applies pending migrations (idempotent) and returns the names applied now. */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  if (databaseUrl.startsWith("file:")) {
    fs.mkdirSync(path.dirname(sqliteFileOf(databaseUrl)), { recursive: true });
  }
  if (await migrationsApplied(databaseUrl)) return [];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [deployScript, databaseUrl]);
    return JSON.parse(stdout) as string[];
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr;
    throw new Error(`migration failed: ${stderr || (error as Error).message}`);
  }
}
