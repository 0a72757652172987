import { isNotConnectionError } from "bullmq";
import type { Logger } from "pino";
import { RECONNECT_MS, type RedisClient, redisClient } from "./redis-address.mjs";

export { RECONNECT_MS, reconnectStrategy } from "./redis-address.mjs";

/** Worker options that let a worker's loop resume as soon as its connection is back. */
export const WORKER_RECOVERY = { runRetryDelay: RECONNECT_MS } as const;

/**
 * Socket errors of a lost connection: a Redis that is killed or restarted resets the connections it had
 * (ECONNRESET), which BullMQ's isNotConnectionError does not count as one. Such an error is the outage the
 * watch reports once, not a failure of its own. Takes an error's fields (a thread sends them over).
 */
const CONNECTION_LOSS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);
/** ioredis's words while no sentinel names a reachable primary (a failover under way): one more retry. */
const NO_PRIMARY_YET = /^All sentinels are unreachable|^failed to connect to sentinel /;
export const isConnectionLoss = (error: { message: string; code?: unknown }): boolean =>
  (typeof error.code === "string" && CONNECTION_LOSS.has(error.code)) ||
  NO_PRIMARY_YET.test(error.message) ||
  !isNotConnectionError(error as Error);

type ErrorSource = { on(event: "error", listener: (error: Error) => void): unknown };

export interface RedisWatch {
  /**
   * Takes the `error` events of Queues, Workers and ioredis clients: without a listener BullMQ prints each
   * one as a raw stack on stderr. A connection error is the outage this watch reports once; any other
   * error is one structured warn line.
   */
  track(...sources: ErrorSource[]): void;
  /** Whether Redis answered last time the watch looked. */
  readonly up: boolean;
  /** When Redis last answered again after an outage (0: never down): a changed value is a new comeback. */
  readonly backAt: number;
  /**
   * Down now, or back for less than a few seconds: jobs that were in flight when Redis went (or came back
   * empty) fail as part of the outage already reported, not as failures of their own.
   */
  inOutage(): boolean;
  /**
   * Resolves once the watch's own connection answers (at once while up), or after `maxMs`: another connection
   * may be back a moment before it, and what that one finds is reported after "redis is back".
   */
  untilUp(maxMs: number): Promise<void>;
  close(): void;
}

/** How long after Redis is back the failures of jobs caught by the outage still count as the outage. */
const OUTAGE_TAIL_MS = 5_000;

interface Shared {
  users: number;
  up: boolean;
  /** When Redis last answered again after an outage (0: never down). */
  backAt: number;
  client: RedisClient;
  log: Logger;
  /** Called once when the watch's connection answers again. */
  waiting: Set<() => void>;
}

const shared = new Map<string, Shared>();

/**
 * One watch per Redis address in the process, shared by everything that connects there, so an outage is one
 * warn line when Redis goes ("redis is unreachable") and one when it answers again ("redis is back"),
 * however many connections notice it. Its own connection decides both.
 */
export function watchRedis(url: string, log: Logger): RedisWatch {
  let state = shared.get(url);
  if (!state) {
    const client = redisClient(url, { maxRetriesPerRequest: null });
    const created: Shared = { users: 0, up: true, backAt: 0, client, log, waiting: new Set() };
    let downSince = 0;
    const down = (error?: Error) => {
      if (!created.up) return;
      created.up = false;
      downSince = Date.now();
      created.log.warn({ err: error ? errorCode(error) : "connection closed" }, "redis is unreachable");
    };
    client.on("error", (error: Error) => down(error));
    client.on("close", () => down());
    client.on("ready", () => {
      if (created.up) return;
      created.up = true;
      created.backAt = Date.now();
      created.log.warn({ downMs: Date.now() - downSince }, "redis is back");
      for (const wake of created.waiting) wake();
      created.waiting.clear();
    });
    state = created;
    shared.set(url, state);
  }
  const mine = state;
  mine.users++;
  let closed = false;
  return {
    track(...sources) {
      for (const source of sources) {
        source.on("error", (error: Error) => {
          if (!isConnectionLoss(error)) mine.log.warn({ err: error.message }, "redis command failed");
        });
      }
    },
    get up() {
      return mine.up;
    },
    get backAt() {
      return mine.backAt;
    },
    inOutage: () => !mine.up || Date.now() - mine.backAt < OUTAGE_TAIL_MS,
    untilUp(maxMs) {
      if (mine.up) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          mine.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, maxMs);
        mine.waiting.add(wake);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      if (--mine.users > 0) return;
      shared.delete(url);
      mine.client.removeAllListeners("close");
      mine.client.removeAllListeners("ready");
      mine.client.disconnect();
    },
  };
}

const errorCode = (error: Error): string => (error as { code?: string }).code ?? error.message;
