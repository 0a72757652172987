import { tuneV8 } from "../src/bot/main/v8-tuning";
import { benchApprovals } from "./approvals";
import { benchChat } from "./chat";
import { runHeldBench } from "./held";

// The V8 flags the bot runs with (npm start), so the figures are the production process's.
tuneV8();

// Each benchmark lives in its own file and prints its own figures; nothing here asserts timings. The held-work
// figures come from one run against the same Redis, so their ratios compare like with like.
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const fmt = (n: number) => n.toFixed(0).padStart(7);
const cpuLine = (name: string, c: { node: number; redis: number }) =>
  `${name} ${c.node.toFixed(0)} + ${c.redis.toFixed(0)}`;
const postgresAdminUrl = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
for (const [database, options] of [
  ["SQLite", {}],
  ["PostgreSQL", { postgresAdminUrl }],
] as const) {
  const held = await runHeldBench({ redisUrl, ...options });
  console.log(`held work on ${database} (each phase against raw BullMQ measured in the same run)`);
  console.log(
    `  (a) raw BullMQ no-op jobs/s, concurrency 50  ${fmt(held.rawJobsPerSec)}   (runs ${held.rawRuns.map((r) => r.toFixed(0)).join(", ")}: around each warm b round, then after c)`,
  );
  console.log(
    `  (b) gated trigger deliveries/s               ${fmt(held.gatedDeliveriesPerSec)}   b/a = ${held.ratios.b.toFixed(2)}   (median of warm rounds ${held.gatedRounds.map((r) => r.toFixed(0)).join(", ")}, ratios ${held.bRatios.map((r) => r.toFixed(2)).join(", ")}; the cold first round ${held.gatedColdPerSec.toFixed(0)})`,
  );
  console.log(
    `  (c) release after resume, deliveries/s       ${fmt(held.releasePerSec)}   c/a = ${held.ratios.c.toFixed(2)}`,
  );
  console.log(`  duplicates ${held.duplicates}, lost ${held.lost}`);
  const cpu = held.cpuPerItem;
  console.log(
    `  CPU µs per item, bench process + Redis: ${cpuLine("(a)", cpu.a)}, ${cpuLine("(b)", cpu.b)}, ${cpuLine("(b) cold", cpu.bCold)}, ${cpuLine("(c)", cpu.c)}`,
  );
}
await benchApprovals();
await benchChat();
process.exit(0); // pools and the wasm engine may keep the event loop alive
