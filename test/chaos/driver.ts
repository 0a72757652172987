import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openStore, type Store } from "../../src/store/connection/client";
import { type BotProcess, isServing, spawnBot } from "../support/bot-process";
import { ADA, actUrl, agentKey, agentName, api, RITA, sleep, tickUrl, writeDirectory } from "../support/deployment";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import type { PrivatePostgres } from "../support/private-postgres";
import { startPrivateRedis } from "../support/redis-server";
import { startRedisCluster, startSentinelGroup } from "../support/redis-topologies";

export type Topology = "single" | "sentinel" | "cluster";

/** The Redis of a topology, with the faults the driver can cause it. */
export interface ChaosRedis {
  topology: Topology;
  /** The bot's environment for it. */
  env: Record<string, string>;
  /** Stops it and starts it again, empty (single server; a Cluster restarts one node). */
  restart(): Promise<void>;
  flushAll(): Promise<void>;
  /** Sentinel only: SIGKILLs the primary and waits for the promotion. */
  failover?(): Promise<{ ms: number }>;
  stop(): Promise<void>;
}

export async function startChaosRedis(topology: Topology): Promise<ChaosRedis> {
  if (topology === "sentinel") {
    const group = await startSentinelGroup();
    return {
      topology,
      env: { REDIS_SENTINELS: group.sentinels, REDIS_SENTINEL_NAME: group.name },
      restart: async () => {
        await group.failover();
      },
      flushAll: () => group.flushAll(),
      failover: () => group.failover(),
      stop: () => group.stop(),
    };
  }
  if (topology === "cluster") {
    const cluster = await startRedisCluster();
    return {
      topology,
      env: { REDIS_CLUSTER_NODES: cluster.nodes },
      restart: () => cluster.restartNode(cluster.ports[0]!, 500),
      flushAll: () => cluster.flushAll(),
      stop: () => cluster.stop(),
    };
  }
  const redis = await startPrivateRedis();
  return {
    topology,
    env: { REDIS_URL: redis.url },
    restart: () => redis.restart(),
    flushAll: () => redis.flushAll(),
    stop: () => redis.stop(),
  };
}

const PAUSED_LINES = new Set(["test pause point reached", "test crash point reached"]);
export const msgOf = (line: Record<string, unknown>) => String(line.msg ?? line.raw ?? "");

/** One entry's deployment: a fresh database on the private server, a prefix, a receiver and bot processes. */
export interface Scene {
  pg: PrivatePostgres;
  redis: ChaosRedis;
  receiver: EffectReceiver;
  /** The test's own view of the database (reconnects after a PostgreSQL restart). */
  store: Store;
  bots: BotProcess[];
  /** Processes the entry ended on purpose (a kill or a SIGTERM): not "unexpected". */
  ended: Set<BotProcess>;
  start(extra?: Record<string, string>): Promise<BotProcess>;
  /** Sends `signal` and waits for the exit; resolves with the exit code. */
  end(bot: BotProcess, signal: NodeJS.Signals): Promise<number | null>;
  /** Waits for a process's pause-point line. */
  paused(bot: BotProcess, timeoutMs?: number): Promise<void>;
  running(): BotProcess[];
  close(): Promise<void>;
}

export const AGENTS = 6;
/** Short leases, so an item a killed process held is taken over within seconds. */
const LEASE_MS = "3000";

export async function openScene(pg: PrivatePostgres, redis: ChaosRedis): Promise<Scene> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-chaos-"));
  const receiver = await startEffectReceiver({ dedupe: true });
  const url = await pg.createDatabase();
  const env = {
    ...redis.env,
    DATABASE_URL: url,
    HOLDFAST_CONFIG: writeDirectory(dir, receiver, AGENTS),
    HOLDFAST_QUEUE_PREFIX: `{hf-chaos-${crypto.randomUUID().slice(0, 8)}}`,
    HOLDFAST_DELIVERY_LEASE_MS: LEASE_MS,
    HOLDFAST_DRAIN_TIMEOUT: "20s",
    LOG_LEVEL: "info",
  };
  const bots: BotProcess[] = [];
  const ended = new Set<BotProcess>();
  const scene: Scene = {
    pg,
    redis,
    receiver,
    store: await openStore(url),
    bots,
    ended,
    async start(extra = {}) {
      const bot = await spawnBot({ ...env, ...extra });
      bots.push(bot);
      await bot.waitForLog(isServing, 90_000);
      return bot;
    },
    async end(bot, signal) {
      ended.add(bot);
      bot.child.kill(signal);
      return bot.exited;
    },
    async paused(bot, timeoutMs = 20_000) {
      await bot.waitForLog((l) => PAUSED_LINES.has(msgOf(l)), timeoutMs);
    },
    running: () => bots.filter((b) => b.child.exitCode === null && b.child.signalCode === null),
    async close() {
      for (const bot of bots) bot.child.kill("SIGKILL");
      await Promise.all(bots.map((b) => b.exited));
      await scene.store.close().catch(() => {});
      await receiver.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return scene;
}

/** Processes that exited without the entry ending them. */
export const unexpectedExits = (scene: Scene): string[] =>
  scene.bots
    .filter((b) => !scene.ended.has(b) && (b.child.exitCode !== null || b.child.signalCode !== null))
    .map((b) => `process ${b.child.pid} exited (${b.child.exitCode ?? b.child.signalCode})`);

// ---- the workload ----

export const TICK_MS = 500;

/** A trigger on agent `i` to the scene's receiver. */
export async function ticks(scene: Scene, bot: BotProcess, i: number, misfire: "all" | "coalesce" = "all") {
  await api(bot, ADA, "POST", `/v1/agents/${agentName(i)}/triggers`, {
    key: "tick",
    every: TICK_MS,
    misfire,
    destination: tickUrl(scene.receiver, i),
  });
}

/** Deletes agent `i`'s trigger, so the scene comes to rest before its check. */
export async function stopTicks(bot: BotProcess, i: number): Promise<void> {
  await api(bot, ADA, "DELETE", `/v1/agents/${agentName(i)}/triggers/tick`);
}

/**
 * Deletes every agent's trigger so the scene comes to rest before its check. A delete that fails (the database
 * just back, a process stopping) is tried again on the next running process; one still failing after 15 s is
 * a violation, since ticks that go on would be caught in flight by the check.
 */
export async function stopAllTicks(scene: Scene): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const deadline = Date.now() + 15_000;
    for (let attempt = 0; ; attempt++) {
      const bots = scene.running();
      const bot = bots[attempt % Math.max(1, bots.length)];
      if (!bot) return failures; // no process left: nothing ticks
      const response = await fetch(`${bot.url}/v1/agents/${agentName(i)}/triggers/tick`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${ADA}` },
      }).catch((error: Error) => ({ status: 0, statusText: error.message }));
      if (response.status === 200 || response.status === 404) break;
      // A database just back or a process stopping is a 503; a door never answers 500.
      if (response.status >= 500 && response.status !== 503)
        failures.push(`agent ${i}: deleting its trigger answered ${response.status}`);
      if (Date.now() > deadline) {
        failures.push(`agent ${i}: its trigger was not deleted (${response.status} ${response.statusText})`);
        break;
      }
      await sleep(250);
    }
  }
  return failures;
}

/** A run of agent `i` created through `via` and approved by rita through `decider`; resolves with its outbox key. */
export async function approvedRun(scene: Scene, via: BotProcess, decider: BotProcess, i: number): Promise<string> {
  const run = await api(via, agentKey(i), "POST", "/v1/runs", {
    agent: agentName(i),
    operation: "pay",
    destination: actUrl(scene.receiver, i),
    packet: { amount: crypto.randomInt(1000) },
    reviewers: ["rita"],
    deadline: new Date(Date.now() + 600_000).toISOString(),
  });
  await api(decider, RITA, "POST", `/v1/runs/${run.id}/decisions`, {
    eventId: `approve-${run.id}`,
    action: "approve",
    version: run.version,
    digest: run.digest,
  });
  return `acme:${run.id}:${run.version}:pay`;
}

/** `n` events for agent `i`, with ids unique in the scene. */
export async function events(bot: BotProcess, i: number, n: number, tag = "e"): Promise<void> {
  for (let k = 0; k < n; k++) {
    await api(bot, agentKey(i), "POST", `/v1/agents/${agentName(i)}/events`, {
      eventId: `${tag}-${i}-${k}`,
      type: "reply",
      payload: { k },
    });
  }
}

/** Waits until the receiver saw a call on agent `i`'s tick path after `after`; resolves with the wait. */
export async function nextTick(scene: Scene, i: number, after: number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const call = scene.receiver.calls.find((c) => c.path === `/t/${i}` && c.at > after);
    if (call) return call.at - after;
    if (Date.now() > deadline) throw new Error(`no tick of agent ${i} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Waits until nothing is in flight in the database (no PLANNED/DISPATCHED item, no open release). */
export async function quiet(scene: Scene, timeoutMs = 40_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const open = await scene.store.db.outboxItem.count({ where: { state: { in: ["PLANNED", "DISPATCHED"] } } });
      const releases = await scene.store.db.release.count({ where: { state: { not: "DONE" } } });
      if (open === 0 && releases === 0) return Date.now() - started;
    } catch {
      // the database may still be coming back
    }
    if (Date.now() - started > timeoutMs) throw new Error(`not settled within ${timeoutMs} ms`);
    await sleep(100);
  }
}
