import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import pino from "pino";
import type { HandlerContext } from "../src/bot/app/context";
import { pauseTenant, resumeTenant } from "../src/bot/app/control/tenant-control";
import { HoldfastEvents } from "../src/bot/app/events";
import { startHeld } from "../src/bot/main/held-wiring";
import { NO_SETTINGS } from "../src/policy/agent-settings";
import { occurrenceKey } from "../src/policy/ids";
import { openStore, type Store } from "../src/store/connection/client";
import { migrateDatabase } from "../src/store/connection/migrate";
import { type DirectorySpec, syncDirectory } from "../src/store/directory/directory";
import { upsertTrigger } from "../src/store/held/triggers";
import { freshPostgres } from "./postgres";
import { startCountingReceiver } from "./receiver";

export interface HeldBenchOptions {
  redisUrl: string;
  /** A PostgreSQL server's admin URL: the bench makes a fresh database there. Absent: a fresh SQLite file. */
  postgresAdminUrl?: string;
  agents?: number;
  perAgent?: number;
  /**
   * After the one-process warm rounds, as many again with a second bot process (bench/held-peer.ts) on the
   * same database and queue prefix, for the two-process figure. Meaningful on PostgreSQL only.
   */
  twoProcesses?: boolean;
}

/**
 * CPU microseconds per item: this process (every thread, the receiver's included), Redis, and PostgreSQL's
 * server processes (near 0 on SQLite).
 */
export interface ItemCpu {
  node: number;
  redis: number;
  postgres: number;
}

export interface HeldBenchResult {
  /** The mean of every yardstick run (the runs are listed in `rawRuns`, in order). */
  rawJobsPerSec: number;
  rawRuns: number[];
  /**
   * Each measured phase over the mean of the yardstick runs on either side of it (the machine's speed
   * drifts within a run). b and c are each the median of their warm rounds' ratios (`bRatios`, `cRatios`, in order).
   */
  ratios: { b: number; c: number };
  bRatios: number[];
  cRatios: number[];
  /** The steady state: the median of the warm rounds' rates (`gatedRounds`). */
  gatedDeliveriesPerSec: number;
  gatedRounds: number[];
  /** The first round, in a process whose threads have not compiled their hot code yet. */
  gatedColdPerSec: number;
  /** The two-process rounds' b/a ratios, and their median over the one-process median (null: not run). */
  twoProcessRatios: number[];
  twoOverOne: number | null;
  /**
   * How busy the machine's cores were (0-1, every process) during the one-process warm (b) rounds and the
   * two-process ones (means): what caps the second process.
   */
  machineBusy: { oneProcess: number; twoProcesses: number | null };
  /** The same for (c): the median of the warm releases' rates (`releaseRounds`), and the process's first release. */
  releasePerSec: number;
  releaseRounds: number[];
  releaseColdPerSec: number;
  /** CPU microseconds per job or delivery, per phase (means); `b2`: the two-process (b) rounds (null: not run). */
  cpuPerItem: Record<"a" | "bCold" | "b" | "cCold" | "c", ItemCpu> & { b2: ItemCpu | null };
  duplicates: number;
  lost: number;
}

/**
 * Warm rounds of (b) and of (c), each between two yardstick runs: (b) cold, a, b, a, b, a, b, a, then (c) cold, a,
 * c, a, c, a, c, a.
 */
const WARM_ROUNDS = 3;
const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const average = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

const log = pino({ level: "warn" });
/** The handlers' context the held-work benches run with (a drain may take long under the bench's load). */
export const benchContext = (store: Store, log: pino.Logger): HandlerContext => ({
  store,
  log,
  now: () => new Date(),
  events: new HoldfastEvents(),
  drainTimeoutMs: 90_000,
});

/** The options the job scheduler gives every tick job (src/queue/held/schedules.ts). */
export const TICK_OPTS = { removeOnComplete: true, removeOnFail: 1000 };
const prefixOf = () => `hf-bench-${crypto.randomUUID().slice(0, 8)}`;

/**
 * CPU spent between start and stop, per item: this process (every thread, the receiver's included) and the
 * Redis server. On a 2-core machine the phases are CPU-bound, so these say where a ratio goes.
 */
export async function cpuMeter(redisUrl: string) {
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
      const machineAt = machineJiffies();
      const postgresAt = postgresJiffies();
      return async (items: number) => {
        const used = process.cpuUsage(node);
        const redisUsed = (await redisCpu()) - redisAt;
        const machine = machineJiffies();
        const busy =
          (machine.total - machine.idle - (machineAt.total - machineAt.idle)) / (machine.total - machineAt.total);
        const postgresUs = ((postgresJiffies() - postgresAt) * 1e6) / CLOCK_TICKS_PER_SECOND;
        return {
          node: (used.user + used.system) / items,
          redis: redisUsed / items,
          postgres: postgresUs / items,
          machineBusy: busy,
        };
      };
    },
    close: () => redis.quit(),
  };
}

/**
 * The whole machine's CPU time so far (every core, every process: the bot, its peer, PostgreSQL, Redis and this
 * bench), and of it the idle part (idle and iowait), in clock ticks from /proc/stat.
 */
function machineJiffies(): { total: number; idle: number } {
  const [, ...fields] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const ticks = fields.map(Number);
  return { total: ticks.reduce((sum, n) => sum + n, 0), idle: ticks[3]! + ticks[4]! };
}

/** Linux's USER_HZ, the unit of /proc's CPU times: 100 on every common build. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * The CPU time of every PostgreSQL server process on this machine so far (user and system, clock ticks): the
 * server's share of a phase when the bench's database is the only busy one. A backend that ended within the
 * phase is missed, so this is a lower bound (the bot's pool keeps its connections).
 */
function postgresJiffies(): number {
  let ticks = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue;
      const fields = stat.slice(close + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // the process ended while being read
    }
  }
  return ticks;
}

/**
 * A (c) round's held work, the tenant paused: each agent's "c" trigger ticks at perAgent due times, the round's
 * own minutes after `slot`, and this waits until all of them are held. Returns their occurrence keys.
 */
export async function holdReleaseRound(
  store: Store,
  ticks: Queue,
  at: { agents: number; perAgent: number; slot: Date; round: number },
): Promise<string[]> {
  const keys: string[] = [];
  const jobs = [];
  const first = at.slot.getTime() + at.round * at.perAgent * 60_000;
  for (let i = 0; i < at.agents; i++) {
    for (let k = 0; k < at.perAgent; k++) {
      const due = new Date(first + k * 60_000);
      keys.push(occurrenceKey(`bench:agent-${i}`, "c", due));
      jobs.push({ name: "fire", data: { triggerId: `bench:agent-${i}:c`, dueAt: due.getTime() }, opts: TICK_OPTS });
    }
  }
  await ticks.addBulk(jobs);
  // This round's due times only: the triggers' own scheduled ticks are held too while the tenant is paused.
  const where = { state: "HELD" as const, dueAt: { gte: new Date(first) } };
  while ((await store.db.occurrence.count({ where })) < keys.length) await new Promise((r) => setTimeout(r, 50));
  return keys;
}

/**
 * (a) The yardstick: raw BullMQ no-op jobs per second at concurrency 50 on the same Redis, measured as (b)
 * is: the worker is already running when the jobs are added in bulk, and the clock runs from the add
 * until the last job completed.
 */
export async function rawBullmq(redisUrl: string, jobs: number): Promise<{ rate: number; cpu: ItemCpu }> {
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
export function benchDirectory(agents: number): DirectorySpec {
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
          settings: NO_SETTINGS,
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

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-bench-"));
  const postgres = options.postgresAdminUrl ? await freshPostgres(options.postgresAdminUrl) : null;
  const url = postgres?.url ?? `file:${path.join(dir, "bench.db")}`;
  await migrateDatabase(url);
  const base = await openStore(url);
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
  const ctx = benchContext(store, log);
  const prefix = prefixOf();
  try {
    await syncDirectory(store, benchDirectory(agents));
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
    // every tick and every claim. (Ticks are added as the scheduler would add them, without waiting.) Rounds
    // of the same work, one slot apart: the first is the cold start (each thread's JIT compiling its hot code
    // took about a third of the process's CPU in a first round); the warm rounds after it are the steady
    // state of a long-running bot, each measured against the yardstick runs on either side of it, and the
    // median of their ratios is reported, so that one slow moment of a noisy machine does not decide it.
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
    const bKeys = [...coldRound.keys];
    const raws = [await rawBullmq(options.redisUrl, total)];
    const warm = [];
    for (let round = 1; round <= WARM_ROUNDS; round++) {
      const gated = await gatedRound(new Date(slot.getTime() + round * 60_000));
      bKeys.push(...gated.keys);
      raws.push(await rawBullmq(options.redisUrl, total));
      warm.push({ ...gated, ratio: gated.rate / ((raws.at(-2)!.rate + raws.at(-1)!.rate) / 2) });
    }

    // Two processes: the same warm rounds with a second bot process sharing the work through the database and
    // the queue. Both processes, PostgreSQL and Redis share this machine's cores, so this says what the design
    // leaves on the table on a bigger machine only where it is not CPU-bound here.
    const twoProcessRatios: number[] = [];
    const twoProcessCpu: Array<ItemCpu & { machineBusy: number }> = [];
    if (options.twoProcesses) {
      const peer = await startPeer(url, options.redisUrl, prefix);
      try {
        for (let round = 1; round <= WARM_ROUNDS; round++) {
          const gated = await gatedRound(new Date(slot.getTime() + (WARM_ROUNDS + round) * 60_000));
          bKeys.push(...gated.keys);
          raws.push(await rawBullmq(options.redisUrl, total));
          twoProcessRatios.push(gated.rate / ((raws.at(-2)!.rate + raws.at(-1)!.rate) / 2));
          twoProcessCpu.push(gated.cpu);
        }
      } finally {
        await peer.stop();
      }
    }

    // (c) release: a tenant-wide pause, perAgent held due times per agent (misfire "all"), then resume. As for
    // (b), the process's first release is the cold one (the release step's code not compiled yet: c/a 0.52
    // against 0.75 warm in one quick run on SQLite) and is reported apart; each warm release after it is
    // measured against the yardstick runs on either side, and the median of their ratios is the figure.
    const root = { id: "bench:root", tenantId: "bench", name: "root", isAdmin: true };
    const cKeys: string[] = [];
    const releaseRound = async (round: number) => {
      await pauseTenant(ctx, root, "bench", null);
      if (round === 0) for (let i = 0; i < agents; i++) await register("c", i);
      const keys = await holdReleaseRound(store, ticks, { agents, perAgent, slot, round });
      const stopMeter = await meter.start();
      const started = Date.now();
      await resumeTenant(ctx, root);
      await receiver.waitFor(keys, 180_000);
      const rate = total / ((Date.now() - started) / 1000);
      cKeys.push(...keys);
      return { rate, cpu: await stopMeter(total) };
    };
    const coldRelease = await releaseRound(0);
    raws.push(await rawBullmq(options.redisUrl, total));
    const warmReleases = [];
    for (let round = 1; round <= WARM_ROUNDS; round++) {
      const released = await releaseRound(round);
      raws.push(await rawBullmq(options.redisUrl, total));
      warmReleases.push({ ...released, ratio: released.rate / ((raws.at(-2)!.rate + raws.at(-1)!.rate) / 2) });
    }
    await meter.close();
    await new Promise((r) => setTimeout(r, 500)); // let any duplicate arrive before counting

    const expected = [...bKeys, ...cKeys];
    const applied = await receiver.applied();
    const lost = expected.filter((k) => !applied.has(k)).length;
    const duplicates = [...applied.values()].filter((n) => n > 1).length;
    // The bot first: its tick workers may be running the triggers' own scheduled ticks, whose jobs an
    // obliterate would pull from under them ("Missing key for job ... moveToFinished").
    await runtime.stop();
    await ticks.obliterate({ force: true });
    await ticks.close();
    const mean = (cpus: ItemCpu[]): ItemCpu => ({
      node: average(cpus.map((c) => c.node)),
      redis: average(cpus.map((c) => c.redis)),
      postgres: average(cpus.map((c) => c.postgres)),
    });
    const bRatios = warm.map((w) => w.ratio);
    const cRatios = warmReleases.map((w) => w.ratio);
    return {
      rawJobsPerSec: raws.reduce((sum, r) => sum + r.rate, 0) / raws.length,
      rawRuns: raws.map((r) => r.rate),
      ratios: { b: median(bRatios), c: median(cRatios) },
      bRatios,
      cRatios,
      gatedDeliveriesPerSec: median(warm.map((w) => w.rate)),
      gatedRounds: warm.map((w) => w.rate),
      gatedColdPerSec: coldRound.rate,
      twoProcessRatios,
      twoOverOne: twoProcessRatios.length ? median(twoProcessRatios) / median(bRatios) : null,
      machineBusy: {
        oneProcess: average(warm.map((w) => w.cpu.machineBusy)),
        twoProcesses: twoProcessCpu.length ? average(twoProcessCpu.map((c) => c.machineBusy)) : null,
      },
      releasePerSec: median(warmReleases.map((w) => w.rate)),
      releaseRounds: warmReleases.map((w) => w.rate),
      releaseColdPerSec: coldRelease.rate,
      cpuPerItem: {
        a: mean(raws.map((r) => r.cpu)),
        bCold: coldRound.cpu,
        b: mean(warm.map((w) => w.cpu)),
        b2: twoProcessCpu.length ? mean(twoProcessCpu) : null,
        cCold: coldRelease.cpu,
        c: mean(warmReleases.map((w) => w.cpu)),
      },
      duplicates,
      lost,
    };
  } finally {
    await receiver.close();
    await store.close();
    await postgres?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** bench/held-peer.ts as a child process, once its runtime is started; `stop` closes its stdin and waits for its exit. */
async function startPeer(url: string, redisUrl: string, prefix: string) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--max-semi-space-size=16", "bench/held-peer.ts", url, redisUrl, prefix],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`bench peer exited (${code}) before it was ready`)));
  });
  return {
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
