import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import type { Logger } from "pino";
import { describeRedisAddress, parseRedisAddress, type RedisClient, redisClient } from "./redis-address.mjs";
import { watchRedis } from "./redis-watch";

const LOCAL_HOST = "127.0.0.1";
const DEFAULT_LOCAL_PORT = 6379;

export interface RedisHandle {
  /** The Redis address (redis-address.mjs): one server's URL, or a Sentinel group's or a Cluster's. */
  url: string;
  /** Where it is, credentials hidden ("redis://127.0.0.1:6379", a Sentinel group or a Cluster): for messages. */
  address: string;
  /** For the start log: the topology and address without a password, and whether Holdfast started it. */
  description: string;
  /** Shared connection for commands; BullMQ workers open their own from `url`. */
  client: RedisClient;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class RedisUnavailableError extends Error {
  readonly code = "redis_unavailable";
}

function answers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Starts `redis-server` as a child that keeps nothing on disk: the database is the source of truth. */
async function startLocalRedis(port: number, log: Logger): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", LOCAL_HOST, "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once("error", () =>
      reject(
        new RedisUnavailableError(
          "REDIS_URL is unset, nothing answers on 127.0.0.1:6379, and redis-server is not installed",
        ),
      ),
    ),
  );
  for (let i = 0; i < 50; i++) {
    const up = await Promise.race([answers(LOCAL_HOST, port, 200), failed]);
    if (up) {
      log.info({ redisPid: child.pid }, "started a local redis-server");
      return child;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new RedisUnavailableError(`started redis-server, but it did not answer on ${LOCAL_HOST}:${port}`);
}

/**
 * Connects to the Redis address (REDIS_URL, or the Sentinel group or Cluster the environment names), or to a
 * local Redis (127.0.0.1, `localPort`, default 6379), starting one as a child process when none answers.
 */
export async function connectRedis(
  redisUrl: string | undefined,
  log: Logger,
  localPort = DEFAULT_LOCAL_PORT,
): Promise<RedisHandle> {
  let child: ChildProcess | undefined;
  const url = redisUrl ?? `redis://${LOCAL_HOST}:${localPort}`;
  if (!redisUrl && !(await answers(LOCAL_HOST, localPort))) child = await startLocalRedis(localPort, log);
  const client = redisClient(url, { maxRetriesPerRequest: null, lazyConnect: true });
  client.on("error", () => {}); // until the connect below answers; then the watch takes over
  await client.connect().catch((error: Error) => {
    client.disconnect();
    child?.kill();
    throw new RedisUnavailableError(`cannot connect to Redis: ${error.message}`);
  });
  client.removeAllListeners("error");
  const watch = watchRedis(url, log);
  watch.track(client);
  const address = describeRedisAddress(url);
  const topology = parseRedisAddress(url).topology;
  const description = child
    ? `${address} (a local redis-server started by Holdfast, pid ${child.pid}; it keeps nothing on disk)`
    : !redisUrl
      ? `${address} (the local Redis; REDIS_URL is unset)`
      : topology === "single"
        ? `one server at ${address}`
        : address;
  return {
    url,
    address,
    description,
    client,
    async ping(timeoutMs = 1000) {
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      return Promise.race([
        client.ping().then(
          (r) => r === "PONG",
          () => false,
        ),
        timeout,
      ]);
    },
    async close() {
      client.disconnect();
      watch.close();
      child?.kill();
    },
  };
}
