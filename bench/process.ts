import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BUILT_BOT, isServing, spawnBot } from "../test/support/bot-process";
import buildDist from "../test/support/build-dist";

export interface ProcessFigures {
  /** From spawning the built bot to its first `GET /healthz` 200, migrations already applied. */
  startToHealthyMs: number;
  /** RSS of that process `IDLE_MS` after it was healthy, with nothing to do (MiB). */
  idleRssMiB: number;
}

/** Long enough for V8's memory reducer to have run after the start's allocations (about 20 s on these machines). */
const IDLE_MS = 30_000;

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
 * the second is timed from spawn to healthy, then left idle and its RSS read.
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
      const idleRssMiB = rssMiB(bot.child.pid!);
      console.log(
        `production process (dist/, SQLite, no chat platform): start to healthy ${startToHealthyMs.toFixed(0)} ms, idle RSS ${idleRssMiB.toFixed(0)} MiB (${((idleRssMiB * 1048576) / 1e6).toFixed(0)} MB) ${IDLE_MS / 1000} s after`,
      );
      return { startToHealthyMs, idleRssMiB };
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
