import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { isConnectionLoss } from "../redis-watch";
import { THREAD_RESOURCE_LIMITS } from "../thread-limits";
import { scheduledMillis } from "./job-ids";

export interface TickThreadOptions {
  redisUrl: string;
  prefix: string;
  concurrency: number;
  log: Logger;
  /** True while a Redis outage is under way or just over (see RedisWatch.inOutage): failures then are its part. */
  inOutage?: () => boolean;
  /** Records one tick (batched by the caller); the job completes when this resolves, fails when it throws. */
  record(tick: { triggerId: string; millis: number }): Promise<void>;
}

/** Past this, start goes on without the thread's word (it keeps connecting, and logs what fails). */
const READY_TIMEOUT_MS = 10_000;

/**
 * Ticks come over as flat arrays of these values per tick, and answers go back as tick id and error (null
 * once recorded): structured cloning copies an object's keys with every tick.
 */
const TICK_FIELDS = 6; // id, triggerId, dueAt (or null), jobId (or null), timestamp, delay

/**
 * Runs the BullMQ worker of scheduler ticks on its own thread (tick-thread.worker.mjs): taking jobs from Redis
 * costs about as much CPU as everything the bot then does with a tick, and on this thread the two run side
 * by side (bench/held.ts). The database work stays here, on the bot's thread. A thread that dies is
 * started again; the jobs it held are stalled and BullMQ hands them out again (recording is idempotent).
 */
export async function startTickThread(options: TickThreadOptions): Promise<{ close(): Promise<void> }> {
  let closing = false;
  const exited = new WeakSet<Worker>();
  let thread = start();
  // Ready means its BullMQ worker is connected: a tick due right after start is taken at once.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_TIMEOUT_MS);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    thread.on("message", (message: { ready?: boolean }) => message.ready && ready());
    thread.on("exit", ready);
  });

  function start(): Worker {
    const { redisUrl, prefix, concurrency } = options;
    const worker = new Worker(new URL("./tick-thread.worker.mjs", import.meta.url), {
      workerData: { redisUrl, prefix, concurrency },
      resourceLimits: THREAD_RESOURCE_LIMITS,
    });
    // Answers of one turn (a committed batch resolves all its ticks together) go back as one message.
    let answers: Array<number | string | null> = [];
    const answer = (id: number, error: string | null) => {
      if (answers.push(id, error) > 2) return;
      queueMicrotask(() => {
        worker.postMessage({ answers });
        answers = [];
      });
    };
    type ThreadMessage = {
      ticks?: Array<string | number | null>;
      log?: Record<string, unknown>;
      error?: { message: string; code?: unknown };
    };
    worker.on("message", (message: ThreadMessage) => {
      // A job caught by an outage (say, one Redis lost with its data) fails as part of that outage, which the
      // watch reported once already; its tick is in the database either way.
      const level = options.inOutage?.() ? "info" : "warn";
      if (message.log) options.log[level](message.log, "tick thread reported a failure");
      if (message.error && !isConnectionLoss(message.error)) {
        options.log[level]({ err: message.error.message }, "tick thread reported a failure");
      }
      const ticks = message.ticks ?? [];
      for (let i = 0; i < ticks.length; i += TICK_FIELDS) {
        const [id, triggerId, dueAt, jobId, timestamp, delay] = ticks.slice(i, i + TICK_FIELDS) as [
          number,
          string,
          number | null,
          string | null,
          number,
          number,
        ];
        const millis =
          typeof dueAt === "number" ? dueAt : scheduledMillis({ id: jobId ?? undefined, timestamp, delay });
        options.record({ triggerId, millis }).then(
          () => answer(id, null),
          (error: Error) => answer(id, error.message),
        );
      }
    });
    worker.on("error", (error) => options.log.error({ err: error.message }, "tick thread failed"));
    worker.on("exit", () => {
      exited.add(worker);
      if (closing) return;
      options.log.warn("tick thread stopped; starting it again");
      setTimeout(() => {
        if (!closing) thread = start();
      }, 1000);
    });
    return worker;
  }

  let closed: Promise<void> | null = null;
  return {
    close() {
      closing = true;
      closed ??= new Promise<void>((resolve) => {
        if (exited.has(thread)) return resolve();
        // The worker finishes its jobs (their ticks still get answered here), then the thread ends.
        thread.on("message", (message: { closed?: boolean }) => message.closed && resolve());
        thread.on("exit", () => resolve());
        thread.postMessage({ close: true });
      }).then(() => thread.terminate().then(() => {}));
      return closed;
    },
  };
}
