import type { Queue } from "bullmq";
import { z } from "zod";
import { callback, parseOptions, positiveMs, QueueBase, QueueBaseSchema, type QueueComponentOptions } from "./base";

export interface RepeatingJobOptions extends QueueComponentOptions {
  /** The queue's name. */
  name: string;
  /** The job scheduler's id (and its jobs' name). Default: the queue's name. */
  schedulerId?: string;
  everyMs: number;
  /** What each run does; runs one at a time in this process. */
  run: () => Promise<unknown>;
  /** The warn line when a run fails. */
  failedMessage: string;
  /** How many failed jobs Redis keeps. Default none. */
  keepFailed?: number;
}

const RepeatingJobSchema = QueueBaseSchema.extend({
  name: z.string().min(1, "the queue's name"),
  schedulerId: z.string().min(1).optional(),
  everyMs: positiveMs(),
  run: callback<() => Promise<unknown>>("one run"),
  failedMessage: z.string().min(1),
  keepFailed: z.number().int().nonnegative().optional(),
});

export interface RepeatingJob {
  /** Sets the job scheduler again (it is gone after Redis lost its data). Idempotent. */
  ensureScheduled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One BullMQ job scheduler per deployment and a worker in this process: every process upserts the same
 * scheduler id, so Redis holds one schedule however many run, and whichever worker takes a job runs it.
 * Redis only carries the timing; what a run does must be correct when several processes run it at once.
 */
class Repeating extends QueueBase implements RepeatingJob {
  private readonly jobs: Queue;
  private readonly options: z.output<typeof RepeatingJobSchema>;

  constructor(input: RepeatingJobOptions) {
    super(input);
    const options = parseOptions(`repeating job ${input.name}`, RepeatingJobSchema, input);
    this.options = options;
    this.jobs = this.queue(options.name, this.client());
    const worker = this.worker(options.name, async () => void (await options.run()), {
      connection: this.client(),
      concurrency: 1,
    });
    worker.on("failed", (_job, error) => this.log.warn({ err: error.message }, options.failedMessage));
  }

  async ensureScheduled(): Promise<void> {
    const id = this.options.schedulerId ?? this.options.name;
    await this.jobs.upsertJobScheduler(
      id,
      { every: this.options.everyMs },
      { name: id, opts: { removeOnComplete: true, removeOnFail: this.options.keepFailed ?? true } },
    );
  }
}

export async function startRepeatingJob(options: RepeatingJobOptions): Promise<RepeatingJob> {
  const job = new Repeating(options);
  await job.ensureScheduled();
  return job;
}
