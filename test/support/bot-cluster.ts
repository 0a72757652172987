import crypto from "node:crypto";
import { afterAll } from "vitest";
import { type BotProcess, isServing, spawnBot } from "./bot-process";
import { createTestDatabase, type TestDatabase } from "./databases";
import { forgetPrefix, REDIS_URL } from "./held-harness";

export interface BotCluster {
  /** This file's queue prefix (its own, so no other bot on the machine's Redis takes its jobs). */
  prefix: string;
  /** The fresh PostgreSQL database the processes share (made on first call). */
  database(): Promise<TestDatabase>;
  /** One more bot process with `env`, once it says it is serving. */
  start(env: Record<string, string>): Promise<BotProcess>;
}

/**
 * Several real bot processes on one PostgreSQL database and one Redis prefix, for one test file: after it,
 * every process still running is killed, the prefix's keys are removed and the database dropped.
 */
export function useBotCluster(name: string): BotCluster {
  const bots: BotProcess[] = [];
  const prefix = `hf-${name}-${crypto.randomUUID().slice(0, 8)}`;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    for (const bot of bots) bot.child.kill("SIGKILL");
    await Promise.all(bots.map((b) => b.exited));
    await forgetPrefix(REDIS_URL, prefix);
    await db?.drop();
  });
  return {
    prefix,
    async database() {
      db ??= await createTestDatabase("postgresql");
      return db;
    },
    async start(env) {
      const bot = await spawnBot(env);
      bots.push(bot);
      await bot.waitForLog(isServing, 60_000);
      return bot;
    },
  };
}
