import crypto from "node:crypto";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HoldfastApp, startApp } from "../../src/bot/main/app";
import { parseEnv } from "../../src/bot/main/config/env";
import { createRun } from "../../src/store/approvals/runs";
import { lastMonitorTickAt } from "../../src/store/escalations/monitor-tick";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { type PrivateRedis, startPrivateRedis } from "../support/redis-server";

// Two whole bot processes (as startApp wires them) on one database and one Redis: the monitor's job
// scheduler ticks in both, a stale approval is escalated once, and a FLUSHALL neither stops the ticks
// (the scheduler is set again when Redis is found emptied) nor repeats the ping.
describe.each(PROVIDERS)("the monitor in the bot processes on %s", (provider) => {
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

  it("escalates once across both, before and after a FLUSHALL", async () => {
    const env = parseEnv({
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      HOLDFAST_QUEUE_PREFIX: `esc-wiring-${crypto.randomUUID().slice(0, 8)}`,
      HOLDFAST_MONITOR_INTERVAL: "200ms",
    });
    // Five hours ahead: past the example's default approvalAfter (4 h) for a run created now.
    const now = () => new Date(Date.now() + 5 * 3_600_000);
    const log = pino({ level: "silent" });
    const apps: HoldfastApp[] = [];
    try {
      apps.push(await startApp({ env, log, now }));
      // Several processes share PostgreSQL (design.md section 8); a second process's migration check on a
      // SQLite file another process holds open fails, so on SQLite one process runs (the monitor-level
      // tests run two monitors on one SQLite file).
      if (provider === "postgresql") apps.push(await startApp({ env, log, now }));
      await createRun(database.store.db, {
        id: "acme:wired",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        operation: "send-invoice",
        destination: "http://127.0.0.1:4000/actions",
        packet: "{}",
        digest: `sha256:${"ef".repeat(32)}`,
        checkpoint: null,
        deadline: new Date(Date.now() + 48 * 3_600_000),
        escalateAfterSeconds: null,
        reviewers: ["acme:rita"],
      });
      const until = async (ok: () => Promise<boolean>) => {
        const deadline = Date.now() + 15_000;
        while (!(await ok())) {
          if (Date.now() > deadline) throw new Error("not in 15 s");
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      const steps = () => database.store.db.escalationStep.count();
      await until(async () => (await steps()) > 0);
      const ticked = (await lastMonitorTickAt(database.store))!;
      await until(async () => (await lastMonitorTickAt(database.store))! > ticked);
      await redis.flushAll();
      const flushed = new Date(Date.now() + 5 * 3_600_000);
      await until(async () => (await lastMonitorTickAt(database.store))! > flushed);
      expect(await steps()).toBe(1);
      // The metrics hooks: one ping sent in all (by whichever process won), and the tick time from the database.
      const scrapes = await Promise.all(apps.map(async (app) => (await app.http.inject({ url: "/metrics" })).body));
      const value = (text: string, series: string) =>
        Number(
          text
            .split("\n")
            .find((line) => line.startsWith(series))
            ?.split(" ")
            .at(-1) ?? 0,
        );
      expect(scrapes.reduce((sum, t) => sum + value(t, 'holdfast_escalations_sent_total{level="1"}'), 0)).toBe(1);
      for (const text of scrapes)
        expect(value(text, "holdfast_monitor_last_tick_timestamp_seconds")).toBeGreaterThan(0);
      expect(await database.store.db.escalation.findMany()).toMatchObject([
        { kind: "approval", subject: "acme:wired", level: 1, targets: JSON.stringify(["acme:bob"]) },
      ]);
    } finally {
      for (const app of apps) await app.stop();
    }
  });
});
