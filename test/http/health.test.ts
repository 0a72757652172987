import crypto from "node:crypto";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { startApp } from "../../src/bot/main/app";
import { parseEnv } from "../../src/bot/main/config/env";
import { createTestDatabase } from "../support/databases";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("/healthz", () => {
  it("is 200 when the database and Redis answer, and 503 naming the reason when one does not", async () => {
    const database = await createTestDatabase("postgresql");
    await database.store.close();
    const app = await startApp({
      env: parseEnv({
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: database.url,
        REDIS_URL,
        HOLDFAST_QUEUE_PREFIX: `hf-health-${crypto.randomUUID().slice(0, 8)}`,
      }),
      log: pino({ level: "silent" }),
    });
    try {
      const url = `http://127.0.0.1:${app.port}/healthz`;
      expect((await fetch(url)).status).toBe(200);
      const live = await fetch(`http://127.0.0.1:${app.port}/livez`);
      expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { state: "RUNNING" } });

      app.redis.client.disconnect();
      const noRedis = await fetch(url);
      expect(noRedis.status).toBe(503);
      expect((await noRedis.json()).checks).toMatchObject({
        database: "ok",
        redis: expect.stringMatching(/^unreachable/),
      });

      await database.drop(); // drops the database out from under the running app
      const noDatabase = await fetch(url);
      expect(noDatabase.status).toBe(503);
      expect((await noDatabase.json()).checks.database).toMatch(/^unreachable/);
    } finally {
      await app.stop();
    }
  });
});
