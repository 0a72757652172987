import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApp } from "../../src/bot/app";
import { parseEnv } from "../../src/bot/config/env";
import { startHeldRuntime } from "../../src/queue/held/runtime";
import { openStore, type Store } from "../../src/store/client";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { type PrivateRedis, startPrivateRedis } from "../support/redis-server";

/** A logger whose lines a test can read. */
function capturingLog() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

describe.each(PROVIDERS)("one deployment on one %s database", (provider) => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  beforeEach(async () => {
    database = await createTestDatabase(provider);
    redis = await startPrivateRedis();
  });
  afterEach(async () => {
    await redis.stop();
    await database.drop();
  });

  it("refuses to start a process whose queue prefix differs from the deployment's", async () => {
    const env = (prefix: string) =>
      parseEnv({
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        HOLDFAST_QUEUE_PREFIX: prefix,
      });
    const log = pino({ level: "silent" });
    const first = await startApp({ env: env("one"), log });
    await first.stop();
    await expect(startApp({ env: env("two"), log })).rejects.toMatchObject({ code: "deployment_mismatch" });
    const again = await startApp({ env: env("one"), log });
    await again.stop();
  });

  it("rebuilds Redis once for the whole deployment when it lost its data", async () => {
    const other: Store = openStore(database.url);
    const processes = [];
    const logs = [capturingLog(), capturingLog()];
    try {
      for (const [i, store] of [database.store, other].entries()) {
        processes.push(
          await startHeldRuntime({
            store,
            log: logs[i]!.log,
            now: () => new Date(),
            redisUrl: redis.url,
            prefix: "deploy",
            instanceId: `p${i}`,
            autoResume: async () => {},
            reconcileMs: 100,
          }),
        );
      }
      const rebuilt = () =>
        logs
          .flatMap((l) => l.lines)
          .filter((l) => l.msg === "redis lost its data: schedules and jobs rebuilt from the database");
      await redis.flushAll();
      const deadline = Date.now() + 5_000;
      while (rebuilt().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 1_000)); // both reconcile ticks have looked several times
      expect(rebuilt()).toHaveLength(1);
    } finally {
      for (const runtime of processes) await runtime.stop();
      await other.close();
    }
  });
});
