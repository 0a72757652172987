import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/connection/client";
import { type BotProcess, isServing, spawnBot } from "../support/bot-process";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import {
  ADA,
  agentName,
  api,
  pauseAgent,
  releasesDone,
  resumeAgent,
  sleep,
  tickUrl,
  writeDirectory,
} from "../support/deployment";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { checkInvariants } from "../support/invariants";
import { cli, startRedisCluster, startSentinelGroup } from "../support/redis-topologies";

/**
 * The real bot on the Redis topologies production runs: a Sentinel group (through a failover, with one agent
 * paused and one running) and a three-node Cluster. Checked at a receiver that counts every call.
 */
const EVERY_MS = 500;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-topology-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const msgOf = (line: Record<string, unknown>) => String(line.msg ?? line.raw ?? "");
const callsOf = (receiver: EffectReceiver, i: number, after = 0) =>
  receiver.calls.filter((c) => c.path === `/t/${i}` && c.at > after);

async function deployment(redisEnv: Record<string, string>) {
  const receiver = await startEffectReceiver({ dedupe: true });
  const database: TestDatabase = await createTestDatabase("postgresql");
  await database.store.close();
  const env = {
    ...redisEnv,
    DATABASE_URL: database.url,
    HOLDFAST_CONFIG: writeDirectory(dir, receiver, 2),
    HOLDFAST_QUEUE_PREFIX: `{hf-topo-${crypto.randomUUID().slice(0, 8)}}`,
  };
  const prefix = env.HOLDFAST_QUEUE_PREFIX;
  const bot: BotProcess = await spawnBot(env);
  const check = await openStore(database.url);
  return {
    receiver,
    bot,
    check,
    prefix,
    async triggers() {
      await bot.waitForLog(isServing, 60_000);
      for (const i of [0, 1]) {
        await api(bot, ADA, "POST", `/v1/agents/${agentName(i)}/triggers`, {
          key: "tick",
          every: EVERY_MS,
          misfire: "all",
          destination: tickUrl(receiver, i),
        });
      }
      const deadline = Date.now() + 15_000;
      while ((callsOf(receiver, 0).length < 2 || callsOf(receiver, 1).length < 2) && Date.now() < deadline)
        await sleep(100);
      expect(callsOf(receiver, 1).length).toBeGreaterThanOrEqual(2);
    },
    /**
     * Stops the ticks (a tick in flight at the check would read as unsettled), then waits for every release;
     * a release that does not finish fails with what it waits on: its row, its lease, what the bot warned.
     */
    async settled() {
      for (const i of [0, 1]) await api(bot, ADA, "DELETE", `/v1/agents/${agentName(i)}/triggers/tick`);
      await releasesDone(check).catch(async (error: Error) => {
        const releases = await check.db.release.findMany();
        const leases = await check.db.lease.findMany();
        const warned = [
          ...new Set(bot.logs.filter((l) => Number(l.level) >= 40).map((l) => `${msgOf(l)} ${l.err ?? ""}`)),
        ];
        throw new Error(`${error.message}: ${JSON.stringify({ releases, leases, warned })}`);
      });
    },
    /** What the bot logged since `since` (ms), one line each: for a failure's message. */
    said(since: number) {
      return bot.logs
        .filter((l) => Number(l.time ?? since) >= since)
        .map((l) => `${l.level} ${msgOf(l)} ${JSON.stringify({ ...l, msg: undefined, time: undefined })}`)
        .join("\n");
    },
    async close() {
      bot.child.kill("SIGKILL");
      await bot.exited;
      await check.close();
      await receiver.close();
      await database.drop();
    },
  };
}

describe("the bot on a Redis Sentinel group", () => {
  it("runs ticks through Sentinel, and a failover holds the paused agent and resumes the running one within seconds", async () => {
    const group = await startSentinelGroup();
    const d = await deployment({ REDIS_SENTINELS: group.sentinels, REDIS_SENTINEL_NAME: group.name });
    try {
      await d.triggers();
      expect(d.bot.logs.some((l) => msgOf(l).startsWith(`redis: Sentinel group "${group.name}" via 127.0.0.1:`))).toBe(
        true,
      );
      const pausedAt = await pauseAgent(d.bot, 0);
      const { ms: promotionMs } = await group.failover();
      const promotedAt = Date.now();
      const deadline = promotedAt + 20_000;
      while (callsOf(d.receiver, 1, promotedAt).length === 0 && Date.now() < deadline) await sleep(50);
      const firstTick = callsOf(d.receiver, 1, promotedAt)[0];
      expect(firstTick, `a tick after the promotion; the bot said: ${d.said(promotedAt - 5_000)}`).toBeDefined();
      const tickAfterMs = firstTick!.at - promotedAt;
      expect(tickAfterMs).toBeLessThan(10_000);
      await sleep(1_500); // due times of the paused agent accumulate on the new primary
      const resumedAt = Date.now();
      await resumeAgent(d.bot, 0);
      await d.settled();
      const report = await checkInvariants({
        store: d.check,
        receiver: d.receiver,
        paused: [{ agent: 0, from: pausedAt, to: resumedAt }],
        everyMs: EVERY_MS,
        controlActions: 2,
      });
      expect(report.violations).toEqual([]);
      const held = await d.check.db.occurrence.count({ where: { state: "RELEASED" } });
      expect(held).toBeGreaterThanOrEqual(3);
      expect(d.bot.child.exitCode).toBe(null);
      console.log(
        `sentinel: promoted in ${promotionMs} ms, next tick ${tickAfterMs} ms after, ${held} held due times released, ${report.checked} items checked`,
      );
    } finally {
      await d.close();
      await group.stop();
    }
  }, 120_000);
});

describe("the bot on a Redis Cluster", () => {
  it("runs ticks, holds and releases on a three-node Cluster, keys under the prefix's hash tag", async () => {
    const cluster = await startRedisCluster();
    const d = await deployment({ REDIS_CLUSTER_NODES: cluster.nodes });
    try {
      await d.triggers();
      expect(d.bot.logs.some((l) => msgOf(l).startsWith("redis: Cluster via 127.0.0.1:"))).toBe(true);
      const pausedAt = await pauseAgent(d.bot, 0);
      await sleep(1_500);
      const resumedAt = Date.now();
      await resumeAgent(d.bot, 0);
      await d.settled();
      const report = await checkInvariants({
        store: d.check,
        receiver: d.receiver,
        paused: [{ agent: 0, from: pausedAt, to: resumedAt }],
        everyMs: EVERY_MS,
        controlActions: 2,
      });
      expect(report.violations).toEqual([]);
      expect(d.bot.child.exitCode).toBe(null);
      // Every key of the deployment, on every node, is under the prefix (its hash tag: one slot).
      const keys = (await Promise.all(cluster.ports.map((p) => cli(p, "--scan")))).flatMap((out) => out.split("\n"));
      expect(keys.filter(Boolean).length).toBeGreaterThan(0);
      expect(keys.filter((k) => k && !k.startsWith(`${d.prefix}:`))).toEqual([]);
    } finally {
      await d.close();
      await cluster.stop();
    }
  }, 120_000);

  it("refuses a queue prefix without a hash tag on a Cluster, naming the variable", async () => {
    const bot = await spawnBot({
      REDIS_CLUSTER_NODES: "127.0.0.1:7000",
      HOLDFAST_QUEUE_PREFIX: "holdfast-plain",
      DATABASE_URL: `file:${path.join(dir, "refused.db")}`,
    });
    const code = await bot.exited;
    expect(code).not.toBe(0);
    expect(bot.logs.map(msgOf).join("\n")).toContain('HOLDFAST_QUEUE_PREFIX: "holdfast-plain" has no hash tag');
  }, 60_000);
});
