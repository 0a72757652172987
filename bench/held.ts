import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue, Worker } from "bullmq";
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
  /** The mean of the two yardstick runs, one before (b) and one after (c): the machine drifts. */
  rawJobsPerSec: number;
  rawRuns: [number, number];
  gatedDeliveriesPerSec: number;
  releasePerSec: number;
  duplicates: number;
  lost: number;
}

const log = pino({ level: "warn" });
/** The options the job scheduler gives every tick job (src/queue/held/schedules.ts). */
const TICK_OPTS = { removeOnComplete: true, removeOnFail: 1000 };
const prefixOf = () => `hf-bench-${crypto.randomUUID().slice(0, 8)}`;

/**
 * (a) The yardstick: raw BullMQ no-op jobs per second at concurrency 50 on the same Redis, measured as (b)
 * is: the worker is already running when the jobs are added in bulk, and the clock runs from the add
 * until the last job completed.
 */
async function rawBullmq(redisUrl: string, jobs: number): Promise<number> {
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
  const started = Date.now();
  await queue.addBulk(
    Array.from({ length: jobs }, (_, i) => ({ name: "noop", data: { i }, opts: { removeOnComplete: true } })),
  );
  await finished;
  const rate = jobs / ((Date.now() - started) / 1000);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return rate;
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
    // every tick and every claim. (Ticks are added as the scheduler would add them, without waiting.)
    for (let i = 0; i < agents; i++) for (let k = 0; k < perAgent; k++) await register(`b${k}`, i);
    const bKeys: string[] = [];
    const bJobs = [];
    for (let i = 0; i < agents; i++) {
      for (let k = 0; k < perAgent; k++) {
        bKeys.push(occurrenceKey(`bench:agent-${i}`, `b${k}`, slot));
        bJobs.push({
          name: "fire",
          data: { triggerId: `bench:agent-${i}:b${k}`, dueAt: slot.getTime() },
          opts: TICK_OPTS,
        });
      }
    }
    let started = Date.now();
    await ticks.addBulk(bJobs);
    await receiver.waitFor(bKeys, 180_000);
    const gatedDeliveriesPerSec = total / ((Date.now() - started) / 1000);

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
    started = Date.now();
    await resumeTenant(ctx, root);
    await receiver.waitFor(cKeys, 180_000);
    const releasePerSec = total / ((Date.now() - started) / 1000);
    await new Promise((r) => setTimeout(r, 500)); // let any duplicate arrive before counting

    const expected = [...bKeys, ...cKeys];
    const applied = await receiver.applied();
    const lost = expected.filter((k) => !applied.has(k)).length;
    const duplicates = [...applied.values()].filter((n) => n > 1).length;
    await ticks.obliterate({ force: true });
    await ticks.close();
    await runtime.stop();
    const rawAfter = await rawBullmq(options.redisUrl, total);
    const rawJobsPerSec = (rawBefore + rawAfter) / 2;
    return { rawJobsPerSec, rawRuns: [rawBefore, rawAfter], gatedDeliveriesPerSec, releasePerSec, duplicates, lost };
  } finally {
    await receiver.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
