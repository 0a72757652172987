import crypto from "node:crypto";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { startApp } from "../../src/bot/main/app";
import { parseEnv } from "../../src/bot/main/config/env";
import { startPrivatePostgres } from "../support/private-postgres";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ALICE = { authorization: "Bearer demo-key-acme-alice-0002" };

describe("a request while the database cannot serve", () => {
  it("answers 503 with Retry-After, the API's words, and no internal error", async () => {
    const server = await startPrivatePostgres();
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const app = await startApp({
      env: parseEnv({
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: await server.createDatabase(),
        REDIS_URL,
        HOLDFAST_QUEUE_PREFIX: `hf-dbunavail-${crypto.randomUUID().slice(0, 8)}`,
      }),
      log,
    });
    try {
      const control = `http://127.0.0.1:${app.port}/v1/agents/ops-agent/control`;
      expect((await fetch(control, { headers: ALICE })).status).toBe(200);
      await server.stop();
      const down = await fetch(control, { headers: ALICE });
      expect({ status: down.status, retryAfter: down.headers.get("retry-after"), body: await down.json() }).toEqual({
        status: 503,
        retryAfter: "2",
        body: { error: "unavailable", message: expect.stringMatching(/database/) },
      });
      expect(lines.filter((l) => l.msg === "request failed")).toEqual([]);
    } finally {
      await app.stop().catch(() => {});
      await server.destroy();
    }
  }, 60_000);
});
