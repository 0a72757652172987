// The BullMQ worker of scheduler ticks, on a thread of its own (started by tick-thread.ts). A tick job only
// completes once the bot's thread answered that the tick is committed to the database; this thread holds no
// rules and no state. Plain JavaScript so that it loads the same way under tsx, vitest and node.

import { parentPort, workerData } from "node:worker_threads";
import { Worker } from "bullmq";
import { bullConnection, RECONNECT_MS } from "../redis-address.mjs";
import { AnswerRecord, TickRecord, TurnBatch } from "../threads/protocol.mjs";

const { redisUrl, prefix, concurrency } = workerData;
const waiting = new Map();
let nextId = 0;
// Ticks go over once per turn of this thread's event loop: the jobs Redis answered in one read share one message.
const outgoing = new TurnBatch(setImmediate, (ticks) => parentPort.postMessage({ ticks }));

/** Hands the tick to the bot's thread; resolves with its error (null once it is recorded). */
function recordTick(job) {
  const id = nextId++;
  TickRecord.encode(outgoing.open(), id, job);
  return new Promise((resolve) => waiting.set(id, resolve));
}

/**
 * The jobs in flight are shared by three BullMQ workers (fewer if fewer may be in flight). A worker filling
 * its free slots fetches one job per Redis round trip, in sequence (Worker.run in BullMQ 6): alone with 600
 * slots, it took about 100 ms to fill them after a burst of ticks arrived, with the other threads mostly idle
 * (perf). Three fill side by side (b/a +0.015 over 5 side-by-side bench pairs, 4 of them higher).
 */
const WORKERS = Math.max(1, Math.min(3, concurrency));
/** Cluster clients made for the workers (a Cluster is taken only as a client), closed after them. */
const owned = [];
/** Reconnects and resumes quickly, as everywhere (redis-watch.ts). */
function connection() {
  const made = bullConnection(redisUrl, { enableAutoPipelining: true });
  if (made.owned) owned.push(made.owned);
  return made.connection;
}
const workers = Array.from(
  { length: WORKERS },
  (_, i) =>
    new Worker(
      "triggers",
      async (job) => {
        const error = await recordTick(job);
        if (error !== null) throw new Error(error);
      },
      // Auto-pipelining: a committed batch completes its jobs in one turn, and their moveToFinished calls then
      // reach Redis in one write instead of one each (Redis CPU per gated delivery fell about a tenth).
      {
        connection: connection(),
        runRetryDelay: RECONNECT_MS,
        prefix,
        // The slots split exactly: the thread never has more than `concurrency` jobs in flight.
        concurrency: Math.floor(concurrency / WORKERS) + (i < concurrency % WORKERS ? 1 : 0),
      },
    ),
);
Promise.all(workers.map((worker) => worker.waitUntilReady())).then(
  () => parentPort.postMessage({ ready: true }),
  (error) => parentPort.postMessage({ ready: true, log: { err: error.message } }),
);
for (const worker of workers) {
  worker.on("failed", (job, error) => parentPort.postMessage({ log: { job: job?.name, err: error.message } }));
  // The bot's thread tells a lost connection (reported once by its Redis watch) from a failure.
  worker.on("error", (error) => parentPort.postMessage({ error: { message: error.message, code: error.code } }));
}

parentPort.on("message", async (message) => {
  const answers = message.answers ?? [];
  for (let i = 0; i < answers.length; i += AnswerRecord.width) {
    const { id, error } = AnswerRecord.decode(answers, i);
    waiting.get(id)?.(error);
    waiting.delete(id);
  }
  if (message.close) {
    await Promise.all(workers.map((worker) => worker.close()));
    for (const client of owned) client.disconnect();
    parentPort.postMessage({ closed: true });
  }
});
