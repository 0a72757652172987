import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisConnection, WORKER_RECOVERY, watchRedis } from "./redis-watch";

export interface RepeatingJobOptions {
  redisUrl: string;
  prefix: string;
  log: Logger;
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
export async function startRepeatingJob(options: RepeatingJobOptions): Promise<RepeatingJob> {
  const connect = () =>
    new Redis(options.redisUrl, { ...redisConnection(options.redisUrl), maxRetriesPerRequest: null });
  const queueConnection = connect();
  const workerConnection = connect();
  const queue = new Queue(options.name, { connection: queueConnection, prefix: options.prefix });
  const worker = new Worker(options.name, async () => void (await options.run()), {
    connection: workerConnection,
    prefix: options.prefix,
    concurrency: 1,
    ...WORKER_RECOVERY,
  });
  // An outage is the shared watch's one warn line each way, not a raw stack or a warn per reconnect.
  const watch = watchRedis(options.redisUrl, options.log);
  watch.track(queueConnection, workerConnection, queue, worker);
  worker.on("failed", (_job, error) => options.log.warn({ err: error.message }, options.failedMessage));
  const ensureScheduled = async () => {
    const id = options.schedulerId ?? options.name;
    await queue.upsertJobScheduler(
      id,
      { every: options.everyMs },
      { name: id, opts: { removeOnComplete: true, removeOnFail: options.keepFailed ?? true } },
    );
  };
  await ensureScheduled();
  return {
    ensureScheduled,
    async close() {
      await worker.close();
      await queue.close();
      queueConnection.disconnect();
      workerConnection.disconnect();
      watch.close();
    },
  };
}
