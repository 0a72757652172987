import os from "node:os";
import { tuneV8 } from "../src/bot/main/v8-tuning";
import { benchApprovals } from "./approvals";
import { benchChat } from "./chat";
import { type ItemCpu, runHeldBench } from "./held";
import { benchProcess } from "./process";
import { benchReleaseMemory } from "./release-memory";

// The V8 flags the bot runs with (npm start), so the figures are the production process's.
tuneV8();

// Each benchmark lives in its own file and prints its own figures; nothing here asserts timings. The held-work
// figures come from one run against the same Redis, so their ratios compare like with like.
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const fmt = (n: number) => n.toFixed(0).padStart(7);
const cpuLine = (name: string, c: ItemCpu) =>
  `${name} ${c.node.toFixed(0)} + ${c.redis.toFixed(0)} + ${c.postgres.toFixed(0)}`;
const postgresAdminUrl = process.env.PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const held: Record<string, { b: number; c: number }> = {};
let twoOverOne: number | null = null;
for (const [database, options] of [
  ["SQLite", {}],
  ["PostgreSQL", { postgresAdminUrl, twoProcesses: true }],
] as const) {
  const figures = await runHeldBench({ redisUrl, ...options });
  held[database] = figures.ratios;
  console.log(`held work on ${database} (each phase against raw BullMQ measured in the same run)`);
  console.log(
    `  (a) raw BullMQ no-op jobs/s, concurrency 50  ${fmt(figures.rawJobsPerSec)}   (runs ${figures.rawRuns.map((r) => r.toFixed(0)).join(", ")}: around each warm b round, then after each release)`,
  );
  console.log(
    `  (b) gated trigger deliveries/s               ${fmt(figures.gatedDeliveriesPerSec)}   b/a = ${figures.ratios.b.toFixed(2)}   (median of warm rounds ${figures.gatedRounds.map((r) => r.toFixed(0)).join(", ")}, ratios ${figures.bRatios.map((r) => r.toFixed(2)).join(", ")}; the cold first round ${figures.gatedColdPerSec.toFixed(0)})`,
  );
  console.log(
    `  (c) release after resume, deliveries/s       ${fmt(figures.releasePerSec)}   c/a = ${figures.ratios.c.toFixed(2)}   (median of warm releases ${figures.releaseRounds.map((r) => r.toFixed(0)).join(", ")}, ratios ${figures.cRatios.map((r) => r.toFixed(2)).join(", ")}; the cold first release ${figures.releaseColdPerSec.toFixed(0)})`,
  );
  if (figures.twoOverOne !== null) {
    twoOverOne = figures.twoOverOne;
    console.log(
      `  (b) with two processes: b/a ratios ${figures.twoProcessRatios.map((r) => r.toFixed(2)).join(", ")}; two over one = ${figures.twoOverOne.toFixed(2)}`,
    );
    const busy = (share: number | null) => `${((share ?? 0) * 100).toFixed(0)} %`;
    console.log(
      `  the machine's ${os.cpus().length} cores were busy ${busy(figures.machineBusy.oneProcess)} of the time in the one-process (b) rounds, ${busy(figures.machineBusy.twoProcesses)} in the two-process ones (every process: the bots, PostgreSQL, Redis, this bench)`,
    );
  }
  console.log(`  duplicates ${figures.duplicates}, lost ${figures.lost}`);
  const cpu = figures.cpuPerItem;
  console.log(
    `  CPU µs per item, bench process + Redis + PostgreSQL server: ${cpuLine("(a)", cpu.a)}, ${cpuLine("(b)", cpu.b)}, ${cpuLine("(b) cold", cpu.bCold)}${cpu.b2 ? `, ${cpuLine("(b) two processes (the peer's own not counted)", cpu.b2)}` : ""}, ${cpuLine("(c)", cpu.c)}, ${cpuLine("(c) cold", cpu.cCold)}`,
  );
}
const approvals = await benchApprovals();
const chat = { SQLite: await benchChat("SQLite"), PostgreSQL: await benchChat("PostgreSQL") };
const production = await benchProcess(redisUrl);
const releaseMemoryMB = ((await benchReleaseMemory(postgresAdminUrl)).afterReleaseMiB * 1048576) / 1e6;

// Every figure of issue 21 beside its target, from this one run. A figure this bench does not measure says so.
type Row = [figure: string, sqlite: number | null, postgres: number | null, target: string, met: boolean | null];
const two = (n: number | null, digits = 2) => (n === null ? "-" : n.toFixed(digits));
const rows: Row[] = [
  [
    "(b) gated trigger deliveries / raw BullMQ",
    held.SQLite!.b,
    held.PostgreSQL!.b,
    "PG >= 0.4; SQLite >= 0.6",
    held.PostgreSQL!.b >= 0.4 && held.SQLite!.b >= 0.6,
  ],
  [
    "(c) release after resume / raw BullMQ",
    held.SQLite!.c,
    held.PostgreSQL!.c,
    "PG >= 0.5; SQLite >= 0.7",
    held.PostgreSQL!.c >= 0.5 && held.SQLite!.c >= 0.7,
  ],
  [
    "decisions answered/s, 10 concurrent clicks per run",
    null,
    approvals.decisionsPerSec,
    ">= 2,000/s",
    approvals.decisionsPerSec >= 2000,
  ],
  ["decision latency p99 (ms)", null, approvals.decisionP99Ms, "<= 50 ms", approvals.decisionP99Ms <= 50],
  [
    "outbox deliveries / plain POST loop",
    null,
    approvals.outboxRatio,
    ">= 0.5",
    approvals.outboxRatio !== null && approvals.outboxRatio >= 0.5,
  ],
  [
    "500 Slack clicks: click -> decision and note, p99 (ms)",
    chat.SQLite.noteP99Ms,
    chat.PostgreSQL.noteP99Ms,
    "<= 500 ms on both",
    chat.SQLite.noteP99Ms <= 500 && chat.PostgreSQL.noteP99Ms <= 500,
  ],
  [
    "yardstick: the same clicks on a bare Bolt app (ack, note, no database), p99 (ms)",
    chat.SQLite.bareBoltNoteP99Ms,
    chat.PostgreSQL.bareBoltNoteP99Ms,
    "none: what Bolt and HTTP alone take on this machine",
    null,
  ],
  [
    "the same clicks: ack p99 / GET /healthz p99",
    chat.SQLite.ackOverHealth,
    chat.PostgreSQL.ackOverHealth,
    "<= 1.2",
    chat.SQLite.ackOverHealth <= 1.2 && chat.PostgreSQL.ackOverHealth <= 1.2,
  ],
  [
    "idle RSS, production start, no chat platform (MB)",
    (production.idleRssMiB * 1048576) / 1e6,
    null,
    "<= 150 MB",
    (production.idleRssMiB * 1048576) / 1e6 <= 150,
  ],
  [
    "start to healthy, migrations applied (ms)",
    production.startToHealthyMs,
    null,
    "<= 3,000 ms",
    production.startToHealthyMs <= 3000,
  ],
  [
    "two processes on one PostgreSQL / one, (b)",
    null,
    twoOverOne,
    `>= 1.5 (${os.cpus().length} cores here: both processes, PostgreSQL and Redis share them)`,
    twoOverOne === null ? null : twoOverOne >= 1.5,
  ],
  [
    "RSS with 10,000 agents after a full release (MB)",
    null,
    releaseMemoryMB,
    "<= 300 MB (one process; npm run bench:load: three)",
    releaseMemoryMB <= 300,
  ],
];
console.log("\nissue 21's figures (this run) against their targets");
console.log("| figure | SQLite | PostgreSQL | target | met |\n|---|---:|---:|---|---|");
for (const [figure, sqlite, postgres, target, met] of rows) {
  const digits = /ms|MB|\/s,/.test(figure) ? 0 : 2;
  console.log(
    `| ${figure} | ${two(sqlite, digits)} | ${two(postgres, digits)} | ${target} | ${met === null ? "-" : met ? "yes" : "NO"} |`,
  );
}
process.exit(0); // pools and the wasm engine may keep the event loop alive
