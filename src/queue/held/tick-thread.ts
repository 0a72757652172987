import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { scheduledMillis } from "../../policy/ids";
import { isConnectionLoss } from "../redis-watch";
import { THREAD_RESOURCE_LIMITS } from "../thread-limits";
import { AnswerRecord, TickRecord, TurnBatch } from "../threads/protocol.mjs";

export interface TickThreadOptions {
  redisUrl: string;
  prefix: string;
  concurrency: number;
  log: Logger;
  /** True while a Redis outage is under way or just over (see RedisWatch.inOutage): failures then are its part. */
  inOutage?: () => boolean;
  /** Whether a failure is part of a database outage (reported once by its watch): nothing more is logged. */
  databaseOutage?: (error: { message: string }) => boolean;
  /** Records one tick (batched by the caller); the job completes when this resolves, fails when it throws. */
  record(tick: { triggerId: string; millis: number }): Promise<void>;
}

/** Past this, start goes on without the thread's word (it keeps connecting, and logs what fails). */
const READY_TIMEOUT_MS = 10_000;

/** What the tick thread says: ticks (TickRecord values), a failure to log, a connection error, ready, closed. */
interface ThreadMessage {
  ticks?: unknown[];
  log?: Record<string, unknown>;
  error?: { message: string; code?: unknown };
  ready?: boolean;
  closed?: boolean;
}

/** Resolves once the thread's BullMQ workers are connected (or it exited, or the wait timed out). */
function whenReady(thread: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_TIMEOUT_MS);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    thread.on("message", (message: ThreadMessage) => message.ready && ready());
    thread.on("exit", ready);
  });
}

/** Takes the thread's messages: records each tick and answers it (a turn's answers go back as one message). */
function listen(thread: Worker, options: TickThreadOptions): void {
  const answers = new TurnBatch<unknown>(queueMicrotask, (values) => thread.postMessage({ answers: values }));
  const answer = (id: number, error: string | null) => AnswerRecord.encode(answers.open(), id, error);
  thread.on("message", (message: ThreadMessage) => {
    // A job caught by an outage (say, one Redis lost with its data) fails as part of that outage, which the
    // watch reported once already; its tick is in the database either way.
    const level = options.inOutage?.() ? "info" : "warn";
    if (message.log && !options.databaseOutage?.({ message: String(message.log.err ?? "") }))
      options.log[level](message.log, "tick thread reported a failure");
    if (message.error && !isConnectionLoss(message.error)) {
      options.log[level]({ err: message.error.message }, "tick thread reported a failure");
    }
    const ticks = message.ticks ?? [];
    for (let i = 0; i < ticks.length; i += TickRecord.width) {
      const tick = TickRecord.decode(ticks, i);
      const millis =
        tick.dueAt ?? scheduledMillis({ id: tick.jobId ?? undefined, timestamp: tick.timestamp, delay: tick.delay });
      options.record({ triggerId: tick.triggerId, millis }).then(
        () => answer(tick.id, null),
        (error: Error) => answer(tick.id, error.message),
      );
    }
  });
}

/**
 * Runs the BullMQ worker of scheduler ticks on its own thread (tick-thread.worker.mjs): taking jobs from Redis
 * costs about as much CPU as everything the bot then does with a tick, and on this thread the two run side
 * by side (bench/held.ts). The database work stays here, on the bot's thread. A thread that dies is
 * started again; the jobs it held are stalled and BullMQ hands them out again (recording is idempotent).
 */
export async function startTickThread(options: TickThreadOptions): Promise<{ close(): Promise<void> }> {
  let closing = false;
  const exited = new WeakSet<Worker>();
  const start = (): Worker => {
    const { redisUrl, prefix, concurrency } = options;
    const worker = new Worker(new URL("./tick-thread.worker.mjs", import.meta.url), {
      workerData: { redisUrl, prefix, concurrency },
      resourceLimits: THREAD_RESOURCE_LIMITS,
    });
    listen(worker, options);
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
  };
  let thread = start();
  // Ready means its BullMQ worker is connected: a tick due right after start is taken at once.
  await whenReady(thread);

  let closed: Promise<void> | null = null;
  return {
    close() {
      closing = true;
      closed ??= new Promise<void>((resolve) => {
        if (exited.has(thread)) return resolve();
        // The worker finishes its jobs (their ticks still get answered here), then the thread ends.
        thread.on("message", (message: ThreadMessage) => message.closed && resolve());
        thread.on("exit", () => resolve());
        thread.postMessage({ close: true });
      }).then(() => thread.terminate().then(() => {}));
      return closed;
    },
  };
}
