import type { Queue } from "bullmq";
import { z } from "zod";
import { expiryJobId } from "../policy/ids";
import { callback, parseOptions, positiveMs, QueueBase, QueueBaseSchema, type QueueComponentOptions } from "./base";

export interface ExpirySchedulerOptions extends QueueComponentOptions {
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

const ExpirySchema = QueueBaseSchema.extend({
  onDue: callback<ExpirySchedulerOptions["onDue"]>("the run's expiry"),
  queueName: z.string().min(1).default("run-expiry"),
  retryDelayMs: positiveMs().default(1000),
});

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
class RunExpiry extends QueueBase implements ExpiryScheduler {
  private readonly jobs: Queue;
  private readonly retryDelayMs: number;

  constructor(input: ExpirySchedulerOptions) {
    super(input);
    const options = parseOptions("expiry scheduler", ExpirySchema, input);
    this.retryDelayMs = options.retryDelayMs;
    this.jobs = this.queue(options.queueName, this.client());
    const worker = this.worker(
      options.queueName,
      async (job) => {
        const { runId, deadlineMs } = job.data as { runId: string; deadlineMs: number };
        if ((await options.onDue(runId, new Date(deadlineMs))) === "not_due") throw new NotDueYet(runId);
      },
      { connection: this.client(), concurrency: 10 },
    );
    worker.on("failed", (job, error) => {
      if (!(error instanceof NotDueYet)) this.log.warn({ run: job?.data.runId, err: error.message }, "expiry failed");
    });
  }

  async schedule(runId: string, deadline: Date, now: Date): Promise<void> {
    await this.jobs.add(
      "expire",
      { runId, deadlineMs: deadline.getTime() },
      {
        jobId: expiryJobId(runId, deadline.getTime()),
        delay: Math.max(0, deadline.getTime() - now.getTime()),
        attempts: 20,
        backoff: { type: "fixed", delay: this.retryDelayMs },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }
}

export function createExpiryScheduler(options: ExpirySchedulerOptions): ExpiryScheduler {
  return new RunExpiry(options);
}
