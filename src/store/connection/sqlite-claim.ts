import fs from "node:fs";
import path from "node:path";
import { providerOf, sqliteFileOf } from "./database-url";

export class DatabaseInUseError extends Error {
  readonly code = "database_in_use";
}

/** Apps of this process holding each lock file (tests run several apps in one process, one after another or at once). */
const heldHere = new Map<string, number>();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * One bot process per SQLite file. A second one used to fail after 7 s inside the schema engine with
 * "WASM_ERROR … unknown variant `SocketTimeout`" (the first process's writes hold the file's lock); now it
 * is refused at once, by a `<file>.lock` holding the first process's pid. A lock whose process is gone (a
 * SIGKILL leaves it behind) is taken over. PostgreSQL needs no claim: several processes share it by design.
 * Returns the release, which removes the lock once this process's last app lets go.
 */
export function claimDatabaseFile(databaseUrl: string): () => void {
  if (providerOf(databaseUrl) !== "sqlite") return () => {};
  const file = sqliteFileOf(databaseUrl);
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!heldHere.has(lock)) takeLock(lock, file);
  heldHere.set(lock, (heldHere.get(lock) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (heldHere.get(lock) ?? 1) - 1;
    if (left > 0) return void heldHere.set(lock, left);
    heldHere.delete(lock);
    if (readPid(lock) === process.pid) fs.rmSync(lock, { force: true });
  };
}

function takeLock(lock: string, file: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = readPid(lock);
    if (holder !== null && holder !== process.pid && alive(holder)) {
      throw new DatabaseInUseError(
        `the SQLite database ${file} is in use by another Holdfast process (pid ${holder}): SQLite serves one process; to run several processes, use PostgreSQL (DATABASE_URL=postgresql://…)`,
      );
    }
    fs.rmSync(lock, { force: true }); // its process is gone
  }
  throw new DatabaseInUseError(`could not take the lock ${lock} on the SQLite database ${file}`);
}

function readPid(lock: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lock, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
