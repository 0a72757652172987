import { type ConnectionOptions, Queue, Worker, type WorkerOptions } from "bullmq";
import type { RedisOptions } from "ioredis";
import type { Logger } from "pino";
import { z } from "zod";
import { bullConnection, type RedisClient, redisClient } from "./redis-address.mjs";
import { type RedisWatch, WORKER_RECOVERY, watchRedis } from "./redis-watch";

/** Why a queue component refused its options: one code, and a message naming the component and option. */
export class QueueOptionsError extends Error {
  readonly code = "queue_options_invalid";
}

/**
 * Parses a component's options against its schema, or throws a `QueueOptionsError` that names the component
 * and the option ("expiry scheduler option prefix: ..."), so a wrong wiring fails at construction, not at the
 * first job.
 */
export function parseOptions<S extends z.ZodType>(component: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new QueueOptionsError(`${component} option ${issue?.path.join(".") || "(options)"}: ${issue?.message}`);
}

/** Schema pieces every component shares. */
export const logOption = z.custom<Logger>(
  (value) => typeof value === "object" && value !== null && typeof (value as Logger).warn === "function",
  "a pino logger",
);
export const callback = <T extends (...args: never[]) => unknown>(what: string) =>
  z.custom<T>((value) => typeof value === "function", `a function (${what})`);
/** A duration in milliseconds above 0 (the message names the option through `parseOptions`). */
export const positiveMs = () => z.number().int("whole milliseconds").positive("above 0 ms");

/**
 * The BullMQ key prefix when none is given: `{holdfast}`, the braces a Redis Cluster hash tag so every key of
 * a queue lands in one slot (HOLDFAST_QUEUE_PREFIX).
 */
export const DEFAULT_QUEUE_PREFIX = "{holdfast}";

/** What every queue component is built from. */
export const QueueBaseSchema = z.object({
  /** A Redis address (redis-address.mjs): a redis:// URL, or a Sentinel group's or a Cluster's address. */
  redisUrl: z.string().min(1, "a redis:// URL"),
  /** Default `{holdfast}`; tests use a random one so parallel files never share a queue. */
  prefix: z.string().min(1, "a BullMQ key prefix such as {holdfast}").default(DEFAULT_QUEUE_PREFIX),
  log: logOption,
});
export type QueueBaseOptions = z.input<typeof QueueBaseSchema>;

/** The head every queue component's options start with. */
export interface QueueComponentOptions {
  redisUrl: string;
  /** BullMQ key prefix, the same on every process of a deployment; tests use a random one. */
  prefix: string;
  log: Logger;
}

type Processor = ConstructorParameters<typeof Worker>[1];

/**
 * The shared base of every BullMQ user (BullMQ's own QueueBase habit): it owns the Redis connections, the
 * queues and workers made through it, and one Redis watch, and closes them in the one safe order: workers
 * first (they finish the jobs they hold), then queues, then the connections, then the watch.
 */
export class QueueBase {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly log: Logger;
  /** One warn line when Redis goes and one when it is back, shared with every other user of the URL. */
  readonly watch: RedisWatch;
  private readonly workers: Worker[] = [];
  private readonly queues: Queue[] = [];
  private readonly clients: RedisClient[] = [];
  private readonly alongWorkers: Array<{ close(): Promise<void> }> = [];
  private closing: Promise<void> | null = null;

  constructor(options: QueueBaseOptions) {
    const base = parseOptions("queue", QueueBaseSchema, options);
    this.redisUrl = base.redisUrl;
    this.prefix = base.prefix;
    this.log = base.log;
    this.watch = watchRedis(base.redisUrl, base.log);
  }

  /**
   * What BullMQ makes its connections from (reconnecting within a quarter second): options, or on a Cluster a
   * client of this component's own, closed with it.
   */
  get connectionOptions(): ConnectionOptions {
    const { connection, owned } = bullConnection(this.redisUrl);
    if (owned) this.clients.push(owned);
    return connection;
  }

  /** An ioredis client of this component's own, closed with it. BullMQ wants `maxRetriesPerRequest: null`. */
  client(overrides: RedisOptions = {}): RedisClient {
    const client = redisClient(this.redisUrl, { maxRetriesPerRequest: null, ...overrides });
    this.clients.push(client);
    this.watch.track(client);
    return client;
  }

  queue(name: string, connection: ConnectionOptions = this.connectionOptions): Queue {
    const queue = new Queue(name, { connection, prefix: this.prefix });
    this.queues.push(queue);
    this.watch.track(queue);
    return queue;
  }

  /** A worker that resumes as soon as its connection is back, its errors taken by the watch. */
  worker(
    name: string,
    processor: Processor,
    options: Omit<WorkerOptions, "connection" | "prefix"> & { connection?: ConnectionOptions },
  ): Worker {
    const worker = new Worker(name, processor, {
      prefix: this.prefix,
      ...WORKER_RECOVERY,
      ...options,
      connection: options.connection ?? this.connectionOptions,
    });
    this.workers.push(worker);
    this.watch.track(worker);
    return worker;
  }

  /** Something that takes jobs like a worker (a worker thread): closed beside the workers, before the queues. */
  closeWithWorkers(closable: { close(): Promise<void> }): void {
    this.alongWorkers.push(closable);
  }

  /** Closes what this component made, once, however often it is asked. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.workers, ...this.alongWorkers].map((worker) => worker.close()));
      await Promise.all(this.queues.map((queue) => queue.close()));
      for (const client of this.clients) client.disconnect();
      this.watch.close();
    })();
    return this.closing;
  }
}
