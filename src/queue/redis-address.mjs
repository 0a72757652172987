// The one place Redis connections are built, for every topology: one server (a redis:// URL), a Sentinel group
// or a Cluster. Everything else passes a Redis *address*, a plain string that names the topology, so it can be
// a map key and cross to a worker thread (the tick thread builds its connections here too). Plain JavaScript so
// that it loads the same way under tsx, vitest and node.
//
//   redis://host:6379, rediss://...           one server (REDIS_URL, any URL ioredis takes)
//   redis+sentinel://[:pw@]h:p,h:p/name       a Sentinel group: its sentinels, the monitored name, the
//                                             sentinels' password (REDIS_SENTINELS, REDIS_SENTINEL_NAME, ...)
//   redis+cluster://h:p,h:p                   a Cluster: some of its nodes (REDIS_CLUSTER_NODES)
//
// Failover is ioredis's own: through Sentinel it asks the sentinels for the primary on every reconnect (a
// primary that stops, or is demoted, closes its connections); a Cluster client follows MOVED and refreshes its
// slots.
//
// ioredis's failoverDetector (it also listens for +switch-master) is left off on purpose: in ioredis 6.0.0 a
// +switch-master that arrives while a connection is asking a sentinel where the primary is ends that
// connection for good (status "end", no more reconnects). 7 of 180 connections were lost that way in six
// failovers; the bot's ticks stopped after one in CI. test/queue/redis-sentinel.test.ts holds it.
import { Cluster, Redis } from "ioredis";

const SENTINEL = "redis+sentinel:";
const CLUSTER = "redis+cluster:";

/**
 * How soon a lost connection is tried again. BullMQ's own defaults back off to 20 s between reconnects, which
 * left 16 s without ticks after Redis came back; Redis only carries timing, so a quarter second is cheap.
 */
export const RECONNECT_MS = 250;
export const reconnectStrategy = (times) => Math.min(50 * times, RECONNECT_MS);

/** "h:p,h:p" as [{host, port}], or a message saying what is wrong. */
export function parseHostList(text) {
  const items = String(text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) return { error: "a list of host:port, comma separated" };
  const hosts = [];
  for (const item of items) {
    const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(item);
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65535) return { error: `"${item}" is not host:port` };
    hosts.push({ host: match[1].replace(/^\[|\]$/g, ""), port });
  }
  return { hosts };
}

const hostList = (hosts) => hosts.map((h) => `${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}`).join(",");

/** The address of a Sentinel group. */
export function sentinelAddress({ sentinels, name, password }) {
  const auth = password ? `:${encodeURIComponent(password)}@` : "";
  return `${SENTINEL}//${auth}${hostList(sentinels)}/${encodeURIComponent(name)}`;
}

/** The address of a Cluster. */
export const clusterAddress = (nodes) => `${CLUSTER}//${hostList(nodes)}`;

/** What an address names: { topology: "single", url } | "sentinel" (sentinels, name, password) | "cluster" (nodes). */
export function parseRedisAddress(address) {
  if (address.startsWith(SENTINEL)) {
    const match = /^redis\+sentinel:\/\/(?::([^@]*)@)?([^/]+)\/(.+)$/.exec(address);
    if (!match) throw new Error("an unparsable Sentinel address");
    const password = match[1] ? decodeURIComponent(match[1]) : undefined;
    return {
      topology: "sentinel",
      sentinels: parseHostList(match[2]).hosts,
      name: decodeURIComponent(match[3]),
      password,
    };
  }
  if (address.startsWith(CLUSTER)) {
    return { topology: "cluster", nodes: parseHostList(address.slice(CLUSTER.length + 2)).hosts };
  }
  return { topology: "single", url: address };
}

/** For the start log: the topology and its hosts, never a password. */
export function describeRedisAddress(address) {
  const target = parseRedisAddress(address);
  if (target.topology === "sentinel") return `Sentinel group "${target.name}" via ${hostList(target.sentinels)}`;
  if (target.topology === "cluster") return `Cluster via ${hostList(target.nodes)}`;
  try {
    const parsed = new URL(target.url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(an unparsable REDIS_URL)";
  }
}

/**
 * A new ioredis client (a Redis, or a Cluster for a Cluster address) with `options` (ioredis RedisOptions;
 * for a Cluster they apply to each node's connection). It reconnects within a quarter second unless the
 * options say otherwise.
 */
export function redisClient(address, options = {}) {
  const target = parseRedisAddress(address);
  const { retryStrategy = reconnectStrategy, lazyConnect, ...rest } = options;
  if (target.topology === "cluster") {
    return new Cluster(target.nodes, {
      clusterRetryStrategy: retryStrategy,
      lazyConnect,
      // A MOVED or a node that is down is retried instead of failing the command (slots move on a failover).
      retryDelayOnClusterDown: RECONNECT_MS,
      retryDelayOnFailover: RECONNECT_MS,
      redisOptions: { ...rest, retryStrategy },
    });
  }
  if (target.topology === "sentinel") {
    return new Redis({
      sentinels: target.sentinels,
      name: target.name,
      sentinelPassword: target.password,
      sentinelRetryStrategy: retryStrategy,
      ...rest,
      lazyConnect,
      retryStrategy,
    });
  }
  return new Redis(target.url, { ...rest, lazyConnect, retryStrategy });
}

/**
 * What a BullMQ Queue or Worker connects with: options it builds its own connections from, or (for a Cluster,
 * which BullMQ only takes as a client) a Cluster client that the caller owns and closes (`owned`).
 */
export function bullConnection(address, options = {}) {
  const target = parseRedisAddress(address);
  if (target.topology === "cluster") {
    const client = redisClient(address, { ...options, maxRetriesPerRequest: null });
    return { connection: client, owned: client };
  }
  if (target.topology === "sentinel") {
    return {
      connection: {
        sentinels: target.sentinels,
        name: target.name,
        sentinelPassword: target.password,
        sentinelRetryStrategy: reconnectStrategy,
        retryStrategy: reconnectStrategy,
        ...options,
      },
      owned: null,
    };
  }
  return { connection: { url: target.url, retryStrategy: reconnectStrategy, ...options }, owned: null };
}
