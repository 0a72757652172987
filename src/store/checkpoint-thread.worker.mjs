// WAL checkpoints of the bot's SQLite file, on a connection and thread of their own (started by
// checkpointer.ts). Plain JavaScript so that it loads the same way under tsx, vitest and node.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, intervalMs } = workerData;
const database = new Database(file, { fileMustExist: true });

/**
 * A PASSIVE checkpoint copies what the WAL holds without blocking the writer, so the writer appends while it
 * runs and the copy is rarely complete when it ends. The WAL starts over from its beginning only after a
 * complete one; the remainder (what was written meanwhile) is small, so a few more rounds catch up.
 */
function checkpoint() {
  for (let round = 0; round < 4; round++) {
    const [result] = database.pragma("wal_checkpoint(PASSIVE)");
    if (result.busy || result.log === result.checkpointed) return;
  }
}

const timer = setInterval(() => {
  try {
    checkpoint();
  } catch (error) {
    parentPort.postMessage({ error: error.message });
  }
}, intervalMs);

parentPort.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  database.close();
  parentPort.postMessage({ closed: true });
});
