import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { AGENT_KEY } from "../support/approvals";
import { isServing, spawnBot } from "../support/bot-process";
import { EXAMPLE_CONFIG } from "../support/harness";
import { startPrivateRedis } from "../support/redis-server";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-expiry-loss-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("a run's expiry when Redis loses everything while the bot runs", () => {
  it("is rebuilt from the database: the run still expires at its deadline", async () => {
    const redis = await startPrivateRedis();
    const destination = "http://127.0.0.1:9/effects";
    const directory = parse(fs.readFileSync(EXAMPLE_CONFIG, "utf8"));
    directory.tenants.acme.agents["ops-agent"].destinations = { [destination]: "none" };
    const config = path.join(dir, "holdfast.yaml");
    fs.writeFileSync(config, stringify(directory));
    const bot = await spawnBot({
      DATABASE_URL: `file:${path.join(dir, "holdfast.db")}`,
      REDIS_URL: redis.url,
      HOLDFAST_CONFIG: config,
    });
    try {
      await bot.waitForLog(isServing);
      const call = async (method: string, url: string, body?: unknown) => {
        const response = await fetch(`${bot.url}${url}`, {
          method,
          headers: { authorization: `Bearer ${AGENT_KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        return (await response.json()) as { state: string; version: number };
      };
      const deadline = new Date(Date.now() + 3_000);
      const created = await call("POST", "/v1/runs", {
        id: "r-expiry",
        agent: "ops-agent",
        operation: "pay",
        destination,
        packet: { amount: 1 },
        reviewers: ["rita"],
        deadline: deadline.toISOString(),
      });
      expect(created).toMatchObject({ state: "waiting", version: 1 });

      await redis.flushAll(); // the delayed expiry job is gone with everything else
      await bot.waitForLog((l) => l.msg === "redis lost its data: schedules and jobs rebuilt from the database");
      for (;;) {
        const run = await call("GET", "/v1/runs/r-expiry");
        if (run.state !== "waiting") {
          expect(run).toMatchObject({ state: "expired", version: 2 });
          break;
        }
        if (Date.now() > deadline.getTime() + 10_000) throw new Error("the run never expired");
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      bot.child.kill("SIGKILL");
      await bot.exited;
      await redis.stop();
    }
  });
});
