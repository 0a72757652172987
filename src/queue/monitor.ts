import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { MONITOR_SCHEDULER } from "../policy/ids";
import { redisConnection, WORKER_RECOVERY, watchRedis } from "./redis-watch";

export interface MonitorQueueOptions {
  redisUrl: string;
  prefix: string;
  log: Logger;
  /** How often a tick is due (HOLDFAST_MONITOR_INTERVAL). */
  everyMs: number;
  /** One tick's work; correct when several processes tick at once (the database decides). */
  onTick: () => Promise<unknown>;
  /** Default "escalation-monitor". */
  queueName?: string;
}

export interface MonitorQueue {
  /** Sets the job scheduler again (after Redis was found emptied). Idempotent. */
  ensureScheduled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stale-wait monitor as one BullMQ job scheduler per deployment: every process upserts the same
 * scheduler id, so Redis holds one schedule however many processes run, and any process's worker may take
 * a tick. It does not read the pause gate: a paused agent is what it watches.
 */
export async function startMonitorQueue(options: MonitorQueueOptions): Promise<MonitorQueue> {
  const name = options.queueName ?? "escalation-monitor";
  const connect = () =>
    new Redis(options.redisUrl, { ...redisConnection(options.redisUrl), maxRetriesPerRequest: null });
  const queueConnection = connect();
  const workerConnection = connect();
  const queue = new Queue(name, { connection: queueConnection, prefix: options.prefix });
  const worker = new Worker(name, async () => void (await options.onTick()), {
    connection: workerConnection,
    prefix: options.prefix,
    concurrency: 1,
    ...WORKER_RECOVERY,
  });
  const watch = watchRedis(options.redisUrl, options.log);
  watch.track(queueConnection, workerConnection, queue, worker);
  worker.on("failed", (_job, error) => options.log.warn({ err: error.message }, "monitor tick failed"));
  const ensureScheduled = async () => {
    await queue.upsertJobScheduler(
      MONITOR_SCHEDULER,
      { every: options.everyMs },
      { name: "tick", opts: { removeOnComplete: true, removeOnFail: true } },
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
