import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/connection/client";
import { isServing, spawnBot } from "../support/bot-process";
import { ADA, agentName, api, sleep, tickUrl, writeDirectory } from "../support/deployment";
import { startEffectReceiver } from "../support/effect-receiver";
import { REDIS_URL } from "../support/held-harness";
import { checkInvariants } from "../support/invariants";
import { startPrivatePostgres } from "../support/private-postgres";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-dbdown-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const msgOf = (line: Record<string, unknown>) => String(line.msg ?? line.raw ?? "");

describe("PostgreSQL down under a running bot", () => {
  it("holds every send, logs one line when the database goes and one when it is back, and loses no due time", async () => {
    const server = await startPrivatePostgres();
    const receiver = await startEffectReceiver({ dedupe: true });
    const url = await server.createDatabase();
    const bot = await spawnBot({
      DATABASE_URL: url,
      REDIS_URL,
      HOLDFAST_CONFIG: writeDirectory(dir, receiver, 1),
      HOLDFAST_QUEUE_PREFIX: `hf-dbdown-${crypto.randomUUID().slice(0, 8)}`,
    });
    const check = await openStore(url);
    try {
      await bot.waitForLog(isServing, 60_000);
      await api(bot, ADA, "POST", `/v1/agents/${agentName(0)}/triggers`, {
        key: "tick",
        every: 500,
        misfire: "all",
        destination: tickUrl(receiver, 0),
      });
      await receiver.waitForCalls(2, 15_000);
      await check.close();
      const before = bot.logs.length;
      await server.stop();
      const downAt = Date.now();
      await sleep(1_000);
      const health = await fetch(`${bot.url}/healthz`);
      expect(health.status).toBe(503);
      await sleep(5_000);
      const sentWhileDown = receiver.calls.filter((c) => c.at > downAt + 500).length;
      await server.start();
      const upAt = Date.now();
      await bot.waitForLog((l) => msgOf(l) === "database is back", 20_000);
      const deadline = Date.now() + 15_000;
      while (!receiver.calls.some((c) => c.at > upAt) && Date.now() < deadline) await sleep(100);
      const firstAfter = receiver.calls.find((c) => c.at > upAt);
      expect(firstAfter, "a tick after the database is back").toBeDefined();
      await sleep(1_000);
      const outage = bot.logs.slice(before).filter((l) => Number(l.level) >= 40);
      // One line when it goes, one when it is back; no flood of claim, reconcile and tick failures.
      expect(outage.map(msgOf)).toEqual(["database is unreachable", "database is back"]);
      expect(sentWhileDown).toBe(0);
      const store = await openStore(url);
      try {
        const report = await checkInvariants({ store, receiver, everyMs: 500 });
        expect(report.violations).toEqual([]);
      } finally {
        await store.close();
      }
      expect(bot.child.exitCode).toBe(null);
      console.log(`database down ${upAt - downAt} ms: ticks again ${firstAfter!.at - upAt} ms after it was back`);
    } finally {
      bot.child.kill("SIGKILL");
      await bot.exited;
      await receiver.close();
      await server.destroy();
    }
  }, 120_000);
});
