import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApp } from "../../src/bot/main/app";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { parseEnv } from "../../src/bot/main/config/env";
import { startHeldRuntime } from "../../src/queue/held/runtime";
import { openStore, type Store } from "../../src/store/connection/client";
import { syncDirectory } from "../../src/store/directory/directory";
import { upsertTrigger } from "../../src/store/held/triggers";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { EXAMPLE_CONFIG } from "../support/harness";
import { capturedLog } from "../support/log-capture";
import { type PrivateRedis, startPrivateRedis } from "../support/redis-server";

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
    await syncDirectory(database.store, loadDirectoryFile(EXAMPLE_CONFIG));
    // Enough triggers that a rebuild takes a while: both processes see the sentinel gone before either is done.
    for (let i = 0; i < 150; i++) {
      await upsertTrigger(
        database.store.db,
        {
          tenantId: "acme",
          agentId: "acme:ops-agent",
          key: `t${i}`,
          everyMs: 3_600_000,
          anchorOffsetMs: 0,
          cron: null,
          tz: null,
          payload: null,
          destination: "http://127.0.0.1:9/t",
          misfire: "skip",
          contract: "none",
        },
        new Date(),
      );
    }
    const other: Store = await openStore(database.url);
    const processes = [];
    const logs = [capturedLog(), capturedLog()];
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
