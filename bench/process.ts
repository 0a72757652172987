import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BUILT_BOT, isServing, spawnBot } from "../test/support/bot-process";
import buildDist from "../test/support/build-dist";

export interface ProcessFigures {
  /** From spawning the built bot to its first `GET /healthz` 200, migrations already applied. */
  startToHealthyMs: number;
  /** RSS of that process with nothing to do: the median of one reading a second over `IDLE_WINDOW_MS` (MiB). */
  idleRssMiB: number;
}

/** Long enough for V8's memory reducer to have run after the start's allocations (about 20 s on these machines). */
const IDLE_MS = 30_000;
/**
 * Idle RSS is read once a second for this long after `IDLE_MS`, and the median taken: the example directory's
 * demo heartbeat delivers every 30 s, and the delivery thread it starts holds about 15 MiB for the 5 s until it
 * ends (src/queue/delivery/http-transport.ts). One reading fell on that or not by chance; the median is what the
 * process holds between such moments, and the highest reading is printed beside it.
 */
const IDLE_WINDOW_MS = 20_000;

/** What `npm start` runs after its build (package.json), without npm's own process in between. */
export const PRODUCTION = BUILT_BOT;

/** `npm start`'s build of dist/ (skipped when it is fresh), and the environment it adds. */
export function buildProduction(): Record<string, string> {
  buildDist();
  return { MALLOC_ARENA_MAX: "2" };
}

/** A process's resident set now (VmRSS) or at its peak (VmHWM), in MiB. */
export const rssMiB = (pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number => {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.replace(/\D+/g, "") ?? 0) / 1024;
};

/** MiB as the targets' MB (10^6 bytes), rounded. */
export const mb = (mib: number) => ((mib * 1048576) / 1e6).toFixed(0);

/**
 * A process's RSS read once a second for `windowMs`: the median, the lowest and the highest reading (MiB). One
 * reading is a matter of chance where the resident set moves by tens of MiB within seconds (the young
 * generations filled and emptied between collections, malloc's arenas trimmed); the median is what it holds.
 */
export async function rssOver(pid: number, windowMs: number) {
  const readings: number[] = [];
  for (let t = 0; t < windowMs; t += 1000) {
    readings.push(rssMiB(pid));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  readings.sort((a, b) => a - b);
  return { median: readings[Math.floor(readings.length / 2)]!, lowest: readings[0]!, highest: readings.at(-1)! };
}

async function healthy(url: string, deadline: number): Promise<void> {
  for (;;) {
    const ok = await fetch(`${url}/healthz`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error("not healthy within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The production process from outside: the built bot (`npm start`'s command, MALLOC_ARENA_MAX=2 as there) on a
 * SQLite file with the example directory and no chat platform. A first start applies the migrations and stops;
 * the second is timed from spawn to healthy, then left idle and its RSS read (see IDLE_WINDOW_MS).
 */
export async function benchProcess(redisUrl: string): Promise<ProcessFigures> {
  const production = buildProduction();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-bench-process-"));
  const env = {
    DATABASE_URL: `file:${path.join(dir, "holdfast.db")}`,
    REDIS_URL: redisUrl,
    HOLDFAST_QUEUE_PREFIX: `{hf-bench-${crypto.randomUUID().slice(0, 8)}}`,
    ...production,
    LOG_LEVEL: "warn",
  };
  try {
    const first = await spawnBot({ ...env, LOG_LEVEL: "info" }, { command: PRODUCTION });
    await first.waitForLog(isServing, 60_000);
    first.child.kill("SIGTERM");
    await first.exited;

    const started = performance.now();
    const bot = await spawnBot(env, { command: PRODUCTION });
    try {
      await healthy(bot.url, Date.now() + 60_000);
      const startToHealthyMs = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idle = await rssOver(bot.child.pid!, IDLE_WINDOW_MS);
      console.log(
        `production process (dist/, SQLite, no chat platform): start to healthy ${startToHealthyMs.toFixed(0)} ms, idle RSS ${idle.median.toFixed(0)} MiB (${mb(idle.median)} MB), median of a reading a second ${IDLE_MS / 1000}-${(IDLE_MS + IDLE_WINDOW_MS) / 1000} s after; highest ${idle.highest.toFixed(0)} MiB (${mb(idle.highest)} MB)`,
      );
      return { startToHealthyMs, idleRssMiB: idle.median };
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
