import { Worker } from "node:worker_threads";

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * The writer's own WAL checkpoints are a backstop only: past this many pages (about 200 MB) the committing
 * transaction checkpoints, as SQLite does by default at 1,000.
 */
export const BACKSTOP_CHECKPOINT_PAGES = 50_000;

/**
 * Checkpoints the WAL of a SQLite file every `intervalMs` from a thread and connection of its own. When the
 * writer checkpointed at commit (SQLite's default), the commit that crossed the threshold copied the whole
 * WAL into the database file and synced it first: about 50 ms of the bot's thread each time under a burst
 * of ticks, during which no tick, claim or acknowledgement moved (bench/held.ts, perf). Here the copy runs
 * beside the writer, which never waits for it. A failed checkpoint is tried again next time (`onError` hears of it);
 * if the thread stops, the writer's backstop keeps the WAL bounded.
 */
export function startCheckpointer(
  file: string,
  options: { intervalMs?: number; onError?: (message: string) => void } = {},
): Checkpointer {
  const thread = new Worker(new URL("./checkpoint-thread.worker.mjs", import.meta.url), {
    workerData: { file, intervalMs: options.intervalMs ?? 1000 },
  });
  thread.unref(); // it never keeps the process alive
  let exited = false;
  const stopped = new Promise<void>((resolve) => {
    thread.on("exit", () => {
      exited = true;
      resolve();
    });
  });
  thread.on("message", (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  thread.on("error", (error) => options.onError?.(error.message));
  return {
    async stop() {
      if (!exited) {
        thread.postMessage("close");
        await Promise.race([
          new Promise<void>((resolve) => thread.on("message", (m: { closed?: boolean }) => m.closed && resolve())),
          stopped,
        ]);
        await thread.terminate();
      }
      await stopped;
    },
  };
}
