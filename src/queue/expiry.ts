import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisConnection, WORKER_RECOVERY, watchRedis } from "./redis-watch";

export interface ExpirySchedulerOptions {
  redisUrl: string;
  /** BullMQ key prefix; tests use a random one so parallel files never share a queue. */
  prefix: string;
  log: Logger;
  /**
   * Called at (or after) the deadline a job was scheduled for; answers whether the run was due, so a job
   * that fired early by the service clock is tried again.
   */
  onDue: (runId: string, deadline: Date) => Promise<"done" | "not_due">;
  /** Default "run-expiry". */
  queueName?: string;
  /** Delay before trying again when a job fired before its deadline by the service clock. Default 1 s. */
  retryDelayMs?: number;
}

export interface ExpiryScheduler {
  /** Idempotent: one delayed job per (run, deadline), however often it is asked. */
  schedule(runId: string, deadline: Date, now: Date): Promise<void>;
  close(): Promise<void>;
}

class NotDueYet extends Error {}

/**
 * Deadlines as BullMQ delayed jobs: the trusted scheduler of design.md section 5. Redis only carries the
 * timing: the run row is the truth, the processor re-reads it, and the schedule is rebuilt from the
 * database at start, so a Redis that lost everything loses no expiry.
 */
export function createExpiryScheduler(options: ExpirySchedulerOptions): ExpiryScheduler {
  const name = options.queueName ?? "run-expiry";
  const connect = () =>
    new Redis(options.redisUrl, { ...redisConnection(options.redisUrl), maxRetriesPerRequest: null });
  const queueConnection = connect();
  const workerConnection = connect();
  const queue = new Queue(name, { connection: queueConnection, prefix: options.prefix });
  const worker = new Worker(
    name,
    async (job) => {
      const { runId, deadlineMs } = job.data as { runId: string; deadlineMs: number };
      if ((await options.onDue(runId, new Date(deadlineMs))) === "not_due") throw new NotDueYet(runId);
    },
    { connection: workerConnection, prefix: options.prefix, concurrency: 10, ...WORKER_RECOVERY },
  );
  const watch = watchRedis(options.redisUrl, options.log);
  watch.track(queueConnection, workerConnection, queue, worker);
  worker.on("failed", (job, error) => {
    if (!(error instanceof NotDueYet)) options.log.warn({ run: job?.data.runId, err: error.message }, "expiry failed");
  });

  return {
    async schedule(runId, deadline, now) {
      await queue.add(
        "expire",
        { runId, deadlineMs: deadline.getTime() },
        {
          // BullMQ ids may not contain ':'; the deadline is part of the id so a changed deadline gets its own job.
          jobId: `expire.${encodeURIComponent(runId).replaceAll(":", "%3A")}.${deadline.getTime()}`,
          delay: Math.max(0, deadline.getTime() - now.getTime()),
          attempts: 20,
          backoff: { type: "fixed", delay: options.retryDelayMs ?? 1000 },
          removeOnComplete: true,
          removeOnFail: true,
        },
      );
    },
    async close() {
      await worker.close();
      await queue.close();
      queueConnection.disconnect();
      workerConnection.disconnect();
      watch.close();
    },
  };
}
