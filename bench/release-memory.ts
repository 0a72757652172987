import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { pauseTenant } from "../src/bot/app/control/tenant-control";
import { loadDirectoryFile } from "../src/bot/main/config/directory-file";
import { openStore } from "../src/store/connection/client";
import { migrateDatabase } from "../src/store/connection/migrate";
import { findAgent, findUserById, syncDirectory } from "../src/store/directory/directory";
import { upsertTrigger } from "../src/store/held/triggers";
import { isServing, spawnBot } from "../test/support/bot-process";
import { api, sleep } from "../test/support/deployment";
import { startPrivateRedis } from "../test/support/redis-server";
import { benchContext } from "./held";
import { agentName, LOAD_ADMIN_KEY, releasedDelivered, writeLoadDirectory } from "./load-tenant";
import { freshPostgres } from "./postgres";
import { buildProduction, mb, PRODUCTION, rssMiB, rssOver } from "./process";
import { startCountingReceiver } from "./receiver";

const AGENTS = 10_000;
/** Each agent's one trigger: AGENTS / (EVERY_MS / 1000) due times a second, held while paused. */
const EVERY_MS = 20_000;
/** Due times held before the resume: two per agent. */
const HELD = 2 * AGENTS;
/**
 * How long after the last released due time was delivered the RSS is read, the triggers still ticking: once a
 * second for READ_WINDOW_MS from then, and the median taken (`rssOver`). Single readings 5 s apart moved
 * between 262 and 327 MiB in that phase, as the threads' young generations filled and emptied.
 */
const SETTLE_MS = 30_000;
const READ_WINDOW_MS = 20_000;
/**
 * RELEASE_MEMORY_RESTART=1 (`npm run bench:quick -- memory`): instead, the restart of a deployment that was
 * running, its agents' slots of the last minute missed; prints the start's time to serving and stops there.
 */
const RESTART = process.env.RELEASE_MEMORY_RESTART === "1";

export interface ReleaseMemoryFigures {
  /** RSS of the process from SETTLE_MS after every released due time was delivered: the median (MiB). */
  afterReleaseMiB: number;
  /** Its peak RSS (VmHWM), the release's burst among it (MiB). */
  peakMiB: number;
  /** From spawn to "serving": migrations applied, 10,000 triggers to schedule and catch up. */
  startedMs: number;
}

/**
 * Issue 21's memory under load, in one process: the production bot (`npm start`'s dist/ and flags) on a fresh
 * PostgreSQL database and a private Redis, with 10,000 agents of one trigger each (every 20 s, all due times
 * delivered: misfire `all`). The tenant is paused from before the start until 20,000 due times are held, then
 * resumed; once every released due time reached the receiver, the RSS is read 30 s later while the triggers go
 * on ticking.
 * The triggers are written to the database before the process starts (it schedules them from there, as after
 * a Redis loss), which takes seconds where 10,000 API calls take minutes. `npm run bench:load` is the same at
 * three processes, 100,000 due times and approval clicks.
 */
export async function benchReleaseMemory(postgresAdminUrl?: string): Promise<ReleaseMemoryFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-bench-release-memory-"));
  const database = await freshPostgres(postgresAdminUrl);
  const redis = await startPrivateRedis();
  const receiver = await startCountingReceiver();
  const store = await openStore(database.url);
  try {
    const tickUrl = `${receiver.url}/t`;
    const config = writeLoadDirectory(dir, AGENTS, tickUrl, `${receiver.url}/act`);
    await migrateDatabase(database.url);
    await syncDirectory(store, loadDirectoryFile(config));
    const created = new Date();
    for (let i = 0; i < AGENTS; i++) {
      const agent = (await findAgent(store.db, "acme", agentName(i)))!;
      await upsertTrigger(
        store.db,
        {
          tenantId: agent.tenantId,
          agentId: agent.id,
          key: "tick",
          everyMs: EVERY_MS,
          cron: null,
          tz: null,
          payload: { i },
          destination: tickUrl,
          misfire: "all",
          contract: "key-retained 24h", // as the API stores it for this destination (writeLoadDirectory)
        },
        created,
      );
    }
    // Paused before the start, so every due time from the first is held until the resume (a running agent
    // whose slot passed during the start would get a recovery release of its own at start).
    const ada = (await findUserById(store.db, "acme:ada"))!;
    const paused = RESTART
      ? { kind: "paused" as const }
      : await pauseTenant(benchContext(store, pino({ level: "silent" })), ada, "bench", null);
    if (paused.kind !== "paused") throw new Error(`pause: ${paused.kind}`);
    const env = {
      ...buildProduction(),
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      HOLDFAST_CONFIG: config,
      HOLDFAST_QUEUE_PREFIX: "{hf-release-memory}",
      LOG_LEVEL: "info",
      // The memory probe of `npm run bench:load` (bench/memory-probe.mjs): where the process's memory goes.
      ...(process.env.LOAD_MEMORY_DIR
        ? {
            LOAD_MEMORY_DIR: process.env.LOAD_MEMORY_DIR,
            NODE_OPTIONS: `--import=${path.resolve("bench/memory-probe.mjs")}`,
          }
        : {}),
    };
    // Registered now rather than when written: the slots that passed while 10,000 were written would be missed
    // time for the start's catch-up, which a restart of a deployment that was running does not find.
    // RESTART: the deployment ran until a minute ago, when each trigger's last due time was recorded.
    const minuteAgo = Math.floor((Date.now() - 60_000) / EVERY_MS) * EVERY_MS;
    await store.db.trigger.updateMany({
      data: RESTART ? { createdAt: new Date(minuteAgo), lastDueAt: new Date(minuteAgo) } : { createdAt: new Date() },
    });
    const spawnedAt = Date.now();
    const bot = await spawnBot(env, { command: PRODUCTION });
    try {
      await bot.waitForLog(isServing, 300_000);
      const startedMs = Date.now() - spawnedAt;
      if (RESTART) {
        const releases = await store.db.release.count();
        console.log(
          `restart (dist/, PostgreSQL, one process): ${AGENTS} running agents, each trigger's last due time a minute back; serving ${(startedMs / 1000).toFixed(1)} s after the spawn, ${releases} recovery releases opened`,
        );
        return { afterReleaseMiB: 0, peakMiB: 0, startedMs };
      }
      const heldCount = () => store.db.occurrence.count({ where: { state: "HELD" } });
      while ((await heldCount()) < HELD) await sleep(1_000);
      const held = await heldCount();
      const resumed = performance.now();
      await api(bot, LOAD_ADMIN_KEY, "POST", "/v1/tenant/resume", {});
      while ((await store.db.release.count({ where: { state: { not: "DONE" } } })) > 0) await sleep(250);
      const releasedMs = performance.now() - resumed;
      await releasedDelivered(store);
      const deliveredMs = performance.now() - resumed;
      await sleep(SETTLE_MS);
      const after = await rssOver(bot.child.pid!, READ_WINDOW_MS);
      const peakMiB = rssMiB(bot.child.pid!, "VmHWM");
      console.log(
        `release memory (dist/, PostgreSQL, one process): ${AGENTS} agents x 1 trigger every ${EVERY_MS / 1000} s; serving ${(startedMs / 1000).toFixed(1)} s after the spawn; ${held} due times held, released in ${(releasedMs / 1000).toFixed(1)} s, all delivered ${(deliveredMs / 1000).toFixed(1)} s after the resume`,
      );
      console.log(
        `  RSS peak ${mb(peakMiB)} MB; from ${SETTLE_MS / 1000} s after the last released due time was delivered, the triggers still ticking, a reading a second for ${READ_WINDOW_MS / 1000} s: median ${mb(after.median)} MB (${mb(after.lowest)}-${mb(after.highest)})`,
      );
      return { afterReleaseMiB: after.median, peakMiB, startedMs };
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
  } finally {
    await store.close();
    await receiver.close();
    await redis.stop();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
