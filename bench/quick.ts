import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import pino from "pino";
import { pauseTenant, resumeTenant } from "../src/bot/app/control/tenant-control";
import { startHeld } from "../src/bot/main/held-wiring";
import { tuneV8 } from "../src/bot/main/v8-tuning";
import { createDeliveryLoop } from "../src/queue/delivery/delivery-loop";
import { openStore } from "../src/store/connection/client";
import { migrateDatabase } from "../src/store/connection/migrate";
import { syncDirectory } from "../src/store/directory/directory";
import { upsertTrigger } from "../src/store/held/triggers";
import { planDelivery } from "../src/store/outbox/plan";
import { startEffectReceiver } from "../test/support/effect-receiver";
import { benchContext, benchDirectory, holdReleaseRound, rawBullmq } from "./held";
import { freshPostgres } from "./postgres";
import { startCountingReceiver } from "./receiver";
import { benchReleaseMemory } from "./release-memory";

/**
 * One figure of `npm run bench` alone, in a minute, for measuring a change: `npm run bench` takes five.
 *
 *   npm run bench:quick -- c [sqlite|postgresql] [rounds]   (c) release after resume / raw BullMQ, per round
 *   npm run bench:quick -- outbox [rounds] [lanes]          outbox deliveries on PostgreSQL / a plain POST loop
 *   npm run bench:quick -- memory                           RSS of one process with 10,000 agents after a release
 *
 * Each round is measured against its own yardstick run(s) beside it, as bench/held.ts and bench/approvals.ts
 * do; the first round is the cold one (the JIT still compiling), the rest are warm. Each line also gives the
 * statements the database was sent per item (every query of a pooled client on PostgreSQL, every execution on
 * SQLite), which is what the hot path's round trips come to. QUICK_STATEMENTS=1 lists the most frequent.
 */
tuneV8();
const [figure = "c", ...rest] = process.argv.slice(2);
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const log = pino({ level: "warn" });

function statementCounter() {
  const counts = new Map<string, number>();
  let total = 0;
  return {
    hook: (sql: string) => {
      total++;
      if (process.env.QUICK_STATEMENTS) counts.set(sql, (counts.get(sql) ?? 0) + 1);
    },
    take() {
      const taken = total;
      total = 0;
      return taken;
    },
    print(items: number) {
      if (!process.env.QUICK_STATEMENTS) return;
      const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
      for (const [sql, n] of top)
        console.log(`  ${(n / items).toFixed(3)}/item  ${sql.replace(/\s+/g, " ").slice(0, 150)}`);
      counts.clear();
    },
  };
}

async function releaseRounds(database: string, rounds: number) {
  const agents = 1000;
  const perAgent = 10;
  const total = agents * perAgent;
  await rawBullmq(redisUrl, total);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-quick-"));
  const postgres = database === "postgresql" ? await freshPostgres() : null;
  const url = postgres?.url ?? `file:${path.join(dir, "bench.db")}`;
  await migrateDatabase(url);
  const statements = statementCounter();
  const store = await openStore(url, { onStatement: statements.hook });
  const receiver = await startCountingReceiver();
  const ctx = benchContext(store, log);
  const prefix = `hf-quick-${Math.random().toString(36).slice(2, 10)}`;
  try {
    await syncDirectory(store, benchDirectory(agents));
    const runtime = await startHeld(ctx, { redisUrl, prefix, reconcileMs: 1000 });
    const ticks = new Queue("triggers", { connection: { url: redisUrl }, prefix });
    const created = new Date();
    const slot = new Date(Math.ceil(created.getTime() / 60_000) * 60_000);
    for (let i = 0; i < agents; i++) {
      await upsertTrigger(
        store.db,
        {
          tenantId: "bench",
          agentId: `bench:agent-${i}`,
          key: "c",
          everyMs: 60_000,
          cron: null,
          tz: null,
          payload: { i },
          destination: `${receiver.url}/c`,
          misfire: "all",
          contract: "none",
        },
        created,
      );
    }
    const root = { id: "bench:root", tenantId: "bench", name: "root", isAdmin: true };
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const before = await rawBullmq(redisUrl, total);
      await pauseTenant(ctx, root, "bench", null);
      const keys = await holdReleaseRound(store, ticks, { agents, perAgent, slot, round });
      statements.take();
      const cpu = process.cpuUsage();
      const started = Date.now();
      await resumeTenant(ctx, root);
      await receiver.waitFor(keys, 180_000);
      const rate = total / ((Date.now() - started) / 1000);
      const used = process.cpuUsage(cpu);
      const perItem = statements.take() / total;
      statements.print(total);
      const after = await rawBullmq(redisUrl, total);
      const ratio = rate / ((before.rate + after.rate) / 2);
      ratios.push(ratio);
      console.log(
        `(c) ${database} round ${round}${round === 0 ? " (cold)" : ""}: ${rate.toFixed(0)}/s, raw ${before.rate.toFixed(0)}/${after.rate.toFixed(0)}/s, c/a = ${ratio.toFixed(2)}, ${perItem.toFixed(2)} statements/item, ${((used.user + used.system) / total).toFixed(0)} µs CPU/item`,
      );
    }
    const applied = await receiver.applied();
    const duplicates = [...applied.values()].filter((n) => n > 1).length;
    console.log(
      `(c) ${database}: warm c/a ${ratios
        .slice(1)
        .map((r) => r.toFixed(2))
        .join(", ")}; duplicates ${duplicates}`,
    );
    // The bot first: its tick workers may be running the triggers' own scheduled ticks, whose jobs an
    // obliterate would pull from under them ("Missing key for job ... moveToFinished").
    await runtime.stop();
    await ticks.obliterate({ force: true });
    await ticks.close();
  } finally {
    await receiver.close();
    await store.close();
    await postgres?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * bench/approvals.ts's outbox figure: 2,000 actions of one agent spread over `lanes` destinations (one lane
 * each: a lane's items go one after another), then the plain loop at as many at once as there are lanes.
 */
async function outboxRounds(rounds: number, lanes: number) {
  const deliveries = 2000;
  const concurrency = lanes;
  const database = await freshPostgres();
  const receiver = await startEffectReceiver();
  const statements = statementCounter();
  const store = await openStore(database.url, { onStatement: statements.hook });
  try {
    await migrateDatabase(database.url);
    await syncDirectory(store, benchDirectory(1));
    const destination = `${receiver.url}/effects`;
    const body = JSON.stringify({ amount: 1, evidence: ["x".repeat(200)] });
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < deliveries; i++) {
        await planDelivery(
          store,
          {
            id: `r${round}-${i}`,
            kind: "action",
            tenantId: "bench",
            agentId: "bench:agent-0",
            destination: `${destination}/${i % lanes}`,
            contract: "unique-external-id",
            payload: { amount: i, evidence: ["x".repeat(200)] },
          },
          new Date(),
        );
      }
      const loop = createDeliveryLoop({ store, log, batchSize: 50, pollMs: 60_000 });
      statements.take();
      const cpu = process.cpuUsage();
      const started = performance.now();
      while ((await loop.runOnce()) > 0);
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const perItem = statements.take() / deliveries;
      statements.print(deliveries);
      await loop.stop();
      let next = 0;
      const plainStart = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < deliveries) {
            const i = next++;
            const response = await fetch(destination, {
              method: "POST",
              headers: { "content-type": "application/json", "idempotency-key": `plain-${round}-${i}` },
              body,
            });
            await response.arrayBuffer();
          }
        }),
      );
      const plainRate = deliveries / ((performance.now() - plainStart) / 1000);
      const acknowledged = await store.db.outboxItem.count({
        where: { state: "ACKNOWLEDGED", id: { startsWith: `r${round}-` } },
      });
      const rate = acknowledged / seconds;
      console.log(
        `outbox round ${round}${round === 0 ? " (cold)" : ""}: ${acknowledged} acknowledged, ${rate.toFixed(0)}/s, plain ${plainRate.toFixed(0)}/s, ratio ${(rate / plainRate).toFixed(2)}, ${perItem.toFixed(2)} statements/item, ${((used.user + used.system) / deliveries).toFixed(0)} µs CPU/item`,
      );
    }
  } finally {
    await store.close();
    await receiver.close();
    await database.drop();
  }
}

if (figure === "c") await releaseRounds(rest[0] ?? "postgresql", Number(rest[1] ?? 3));
else if (figure === "outbox") await outboxRounds(Number(rest[0] ?? 3), Number(rest[1] ?? 50));
else if (figure === "memory") await benchReleaseMemory();
else throw new Error(`unknown figure ${figure}: c, outbox or memory`);
process.exit(0);
