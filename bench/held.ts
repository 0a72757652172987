import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import pino from "pino";
import type { HandlerContext } from "../src/bot/context";
import { HoldfastEvents } from "../src/bot/events";
import { pauseTenant, resumeTenant } from "../src/bot/handlers/tenant-control";
import { startHeld } from "../src/bot/held-wiring";
import { occurrenceKey } from "../src/policy/misfire";
import { openStore } from "../src/store/client";
import { type DirectorySpec, syncDirectory } from "../src/store/directory";
import { migrateDatabase } from "../src/store/migrate";
import { upsertTrigger } from "../src/store/triggers";
import { startCountingReceiver } from "./receiver";

export interface HeldBenchOptions {
  redisUrl: string;
  agents?: number;
  perAgent?: number;
}

export interface HeldBenchResult {
  /** The mean of the three yardstick runs: before (b), between (b) and (c), and after (c). */
  rawJobsPerSec: number;
  rawRuns: [number, number, number];
  /**
   * Each phase against the yardstick runs on either side of it (the machine's speed drifts within a run):
   * b over the mean of the first two, c over the mean of the last two.
   */
  ratios: { b: number; c: number };
  /** The steady state: the second of two equal rounds. */
  gatedDeliveriesPerSec: number;
  /** The first round, in a process whose threads have not compiled their hot code yet. */
  gatedColdPerSec: number;
  releasePerSec: number;
  /** CPU microseconds per job or delivery, of this process (all threads) and of Redis, per phase. */
  cpuPerItem: Record<"a" | "bCold" | "b" | "c", { node: number; redis: number }>;
  duplicates: number;
  lost: number;
}

const log = pino({ level: "warn" });
/** The options the job scheduler gives every tick job (src/queue/held/schedules.ts). */
const TICK_OPTS = { removeOnComplete: true, removeOnFail: 1000 };
const prefixOf = () => `hf-bench-${crypto.randomUUID().slice(0, 8)}`;

/**
 * CPU spent between start and stop, per item: this process (every thread, the receiver's included) and the
 * Redis server. On a 2-core machine the phases are CPU-bound, so these say where a ratio goes.
 */
async function cpuMeter(redisUrl: string) {
  const redis = new Redis(redisUrl);
  const redisCpu = async () => {
    const info = await redis.info("cpu");
    const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
    return (field("used_cpu_user") + field("used_cpu_sys")) * 1e6;
  };
  return {
    async start() {
      const node = process.cpuUsage();
      const redisAt = await redisCpu();
      return async (items: number) => {
        const used = process.cpuUsage(node);
        const redisUsed = (await redisCpu()) - redisAt;
        return { node: (used.user + used.system) / items, redis: redisUsed / items };
      };
    },
    close: () => redis.quit(),
  };
}

/**
 * (a) The yardstick: raw BullMQ no-op jobs per second at concurrency 50 on the same Redis, measured as (b)
 * is: the worker is already running when the jobs are added in bulk, and the clock runs from the add
 * until the last job completed.
 */
async function rawBullmq(
  redisUrl: string,
  jobs: number,
): Promise<{ rate: number; cpu: { node: number; redis: number } }> {
  const connection = { url: redisUrl };
  const prefix = prefixOf();
  const queue = new Queue("noop", { connection, prefix });
  const worker = new Worker("noop", async () => {}, { connection, prefix, concurrency: 50 });
  await worker.waitUntilReady();
  let done = 0;
  const finished = new Promise<void>((resolve) => {
    worker.on("completed", () => {
      if (++done === jobs) resolve();
    });
  });
  const meter = await cpuMeter(redisUrl);
  const stopMeter = await meter.start();
  const started = Date.now();
  await queue.addBulk(
    Array.from({ length: jobs }, (_, i) => ({ name: "noop", data: { i }, opts: { removeOnComplete: true } })),
  );
  await finished;
  const rate = jobs / ((Date.now() - started) / 1000);
  const cpu = await stopMeter(jobs);
  await meter.close();
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return { rate, cpu };
}

/** 1,000 agents in one tenant, with an admin who can pause and resume the whole tenant. */
function benchDirectory(agents: number): DirectorySpec {
  return {
    tenants: [
      {
        id: "bench",
        admins: ["root"],
        users: [{ name: "root", identities: [] }],
        agents: Array.from({ length: agents }, (_, i) => ({
          name: `agent-${i}`,
          supervisors: [],
          reviewers: [],
          settings: {},
        })),
      },
    ],
  };
}

export async function runHeldBench(options: HeldBenchOptions): Promise<HeldBenchResult> {
  const agents = options.agents ?? 1000;
  const perAgent = options.perAgent ?? 10;
  const total = agents * perAgent;
  await rawBullmq(options.redisUrl, total); // warms the yardstick's code, as (b)'s first round warms the bot's
  const rawBefore = await rawBullmq(options.redisUrl, total);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-bench-"));
  const url = `file:${path.join(dir, "bench.db")}`;
  await migrateDatabase(url);
  const base = openStore(url);
  const counts = new Map<string, number>();
  const db = process.env.COUNT_QUERIES
    ? (base.db.$extends({
        query: {
          async $allOperations({ model, operation, args, query }) {
            const k = `${model}.${operation}`;
            const t0 = performance.now();
            try {
              return await query(args);
            } finally {
              counts.set(k, (counts.get(k) ?? 0) + (performance.now() - t0));
            }
          },
        },
      }) as unknown as typeof base.db)
    : base.db;
  const store = { ...base, db };
  process.on("exit", () => {
    if (process.env.COUNT_QUERIES)
      console.log(
        [...counts.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 25)
          .map(([k, v]) => [k, Math.round(v)]),
      );
  });
  const receiver = await startCountingReceiver();
  const ctx: HandlerContext = {
    store,
    log,
    now: () => new Date(),
    events: new HoldfastEvents(),
    drainTimeoutMs: 90_000,
  };
  const prefix = prefixOf();
  try {
    await syncDirectory(store.db, benchDirectory(agents));
    const runtime = await startHeld(ctx, {
      redisUrl: options.redisUrl,
      prefix,
      reconcileMs: 1000,
    });
    const ticks = new Queue("triggers", { connection: { url: options.redisUrl }, prefix });
    const created = new Date();
    const slot = new Date(Math.ceil(created.getTime() / 60_000) * 60_000);
    const register = async (key: string, i: number) =>
      upsertTrigger(
        store.db,
        {
          tenantId: "bench",
          agentId: `bench:agent-${i}`,
          key,
          everyMs: 60_000,
          cron: null,
          tz: null,
          payload: { i },
          destination: `${receiver.url}/${key}`,
          misfire: "all",
          contract: "none",
        },
        created,
      );

    // (b) gated deliveries: one tick for each of perAgent triggers per agent, agent running, gate read on
    // every tick and every claim. (Ticks are added as the scheduler would add them, without waiting.) Two
    // rounds of the same work, one slot apart: the first is the cold start (each thread's JIT compiling its
    // hot code took about a third of the process's CPU in a first round), the second is the steady state
    // of a long-running bot, and the ratio uses it, against a warmed yardstick.
    for (let i = 0; i < agents; i++) for (let k = 0; k < perAgent; k++) await register(`b${k}`, i);
    const meter = await cpuMeter(options.redisUrl);
    const gatedRound = async (dueAt: Date) => {
      const keys: string[] = [];
      const jobs = [];
      for (let i = 0; i < agents; i++) {
        for (let k = 0; k < perAgent; k++) {
          keys.push(occurrenceKey(`bench:agent-${i}`, `b${k}`, dueAt));
          jobs.push({
            name: "fire",
            data: { triggerId: `bench:agent-${i}:b${k}`, dueAt: dueAt.getTime() },
            opts: TICK_OPTS,
          });
        }
      }
      const stopMeter = await meter.start();
      const started = Date.now();
      await ticks.addBulk(jobs);
      await receiver.waitFor(keys, 180_000);
      const rate = total / ((Date.now() - started) / 1000);
      return { keys, rate, cpu: await stopMeter(total) };
    };
    const coldRound = await gatedRound(slot);
    const gated = await gatedRound(new Date(slot.getTime() + 60_000));
    const rawBetween = await rawBullmq(options.redisUrl, total);
    const bKeys = [...coldRound.keys, ...gated.keys];

    // (c) release: a tenant-wide pause, perAgent held occurrences per agent (misfire "all"), then resume.
    const root = { id: "bench:root", tenantId: "bench", name: "root", isAdmin: true };
    await pauseTenant(ctx, root, "bench", null);
    for (let i = 0; i < agents; i++) await register("c", i);
    const cKeys: string[] = [];
    const cJobs = [];
    for (let i = 0; i < agents; i++) {
      for (let k = 0; k < perAgent; k++) {
        const due = new Date(slot.getTime() + k * 60_000);
        cKeys.push(occurrenceKey(`bench:agent-${i}`, "c", due));
        cJobs.push({ name: "fire", data: { triggerId: `bench:agent-${i}:c`, dueAt: due.getTime() }, opts: TICK_OPTS });
      }
    }
    await ticks.addBulk(cJobs);
    while ((await store.db.occurrence.count({ where: { state: "HELD" } })) < total) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const stopMeter = await meter.start();
    const started = Date.now();
    await resumeTenant(ctx, root);
    await receiver.waitFor(cKeys, 180_000);
    const releasePerSec = total / ((Date.now() - started) / 1000);
    const cpuC = await stopMeter(total);
    await meter.close();
    await new Promise((r) => setTimeout(r, 500)); // let any duplicate arrive before counting

    const expected = [...bKeys, ...cKeys];
    const applied = await receiver.applied();
    const lost = expected.filter((k) => !applied.has(k)).length;
    const duplicates = [...applied.values()].filter((n) => n > 1).length;
    await ticks.obliterate({ force: true });
    await ticks.close();
    await runtime.stop();
    const rawAfter = await rawBullmq(options.redisUrl, total);
    const raws = [rawBefore, rawBetween, rawAfter];
    const mean = (k: "node" | "redis") => raws.reduce((sum, r) => sum + r.cpu[k], 0) / raws.length;
    return {
      rawJobsPerSec: raws.reduce((sum, r) => sum + r.rate, 0) / raws.length,
      rawRuns: [rawBefore.rate, rawBetween.rate, rawAfter.rate],
      ratios: {
        b: gated.rate / ((rawBefore.rate + rawBetween.rate) / 2),
        c: releasePerSec / ((rawBetween.rate + rawAfter.rate) / 2),
      },
      gatedDeliveriesPerSec: gated.rate,
      gatedColdPerSec: coldRound.rate,
      releasePerSec,
      cpuPerItem: { a: { node: mean("node"), redis: mean("redis") }, bCold: coldRound.cpu, b: gated.cpu, c: cpuC },
      duplicates,
      lost,
    };
  } finally {
    await receiver.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
