import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isServing, spawnBot } from "../support/bot-process";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-start-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the bot process", () => {
  it("migrates, loads the example directory, serves /healthz, keeps a pause across restart, and stops on SIGTERM", async () => {
    const env = {
      DATABASE_URL: `file:${path.join(dir, "holdfast.db")}`,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    };
    const first = await spawnBot(env);
    await first.waitForLog(isServing);
    expect(first.logs.some((l) => l.msg === "HOLDFAST_CONFIG is unset: using the example directory (demo keys)")).toBe(
      true,
    );
    const health = await fetch(`${first.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, state: "RUNNING", checks: { database: "ok", redis: "ok" } });
    const pause = await fetch(`${first.url}/v1/agents/ops-agent/pause`, {
      method: "POST",
      headers: { authorization: "Bearer demo-key-acme-alice-0002", "content-type": "application/json" },
      body: JSON.stringify({ reason: "vacation" }),
    });
    expect(pause.status).toBe(200);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await spawnBot(env);
    await second.waitForLog(isServing);
    expect(
      second.logs.find((l) => /^database: SQLite file .* \(schema up to date\)$/.test(String(l.msg))),
    ).toBeTruthy();
    const control = await fetch(`${second.url}/v1/agents/ops-agent/control`, {
      headers: { authorization: "Bearer demo-key-acme-mia-0006" },
    });
    expect(await control.json()).toMatchObject({
      state: "PAUSED",
      holdLevel: "principal",
      reason: "vacation",
      setBy: "alice",
    });
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    // The demo's own "demo ready" line names the example file's published demo keys on purpose (the demo now
    // seeds on any port); no other line may name a key.
    const lines = [...first.logs, ...second.logs] as Array<{ msg?: string }>;
    expect(lines.filter((l) => l.msg?.startsWith("demo ready:")).length).toBe(2);
    const rest = JSON.stringify(lines.filter((l) => !l.msg?.startsWith("demo ready:")));
    expect(rest).not.toContain("demo-key-acme");
  });

  it("`npm start` rebuilds a stale dist/ at prestart and serves from the built JavaScript, no TypeScript loader", async () => {
    const built = path.resolve("dist/main.mjs");
    if (fs.existsSync(built)) fs.utimesSync(built, new Date(0), new Date(0)); // older than every source file
    const env = { DATABASE_URL: `file:${path.join(dir, "npm-start.db")}` };
    // A group of its own: a failed run must not leave npm's child (the bot) running after npm is killed.
    const bot = await spawnBot(env, { command: ["npm", "start"], detached: true });
    try {
      await bot.waitForLog(isServing, 60_000);
      expect(fs.statSync(built).mtimeMs).toBeGreaterThan(Date.now() - 120_000);
      const health = await fetch(`${bot.url}/healthz`);
      expect(health.status).toBe(200);
      // npm runs the script as its child, and the script `exec`s node, so that child is the bot itself.
      const [served] = fs.readFileSync(`/proc/${bot.child.pid}/task/${bot.child.pid}/children`, "utf8").split(" ");
      const command = fs.readFileSync(`/proc/${served}/cmdline`, "utf8").split("\0");
      expect(command).toContain("dist/main.mjs");
      expect(command.join(" ")).not.toContain("tsx");
      bot.child.kill("SIGTERM");
      expect(await bot.exited).toBe(0);
    } finally {
      try {
        if (bot.child.pid) process.kill(-bot.child.pid, "SIGKILL");
      } catch {} // the group is gone already: it stopped cleanly
    }
  }, 90_000);

  it("exits with a clear message when the configured Redis cannot be reached", async () => {
    const env = { DATABASE_URL: `file:${path.join(dir, "h2.db")}`, REDIS_URL: "redis://127.0.0.1:1" };
    const bot = await spawnBot(env);
    try {
      await bot.waitForLog((l) => l.level === 60 || isServing(l));
      // A Redis that cannot be reached at start is a clear fatal error, not a silent hang.
      expect(await bot.exited).toBe(1);
      expect(bot.logs.find((l) => l.level === 60)?.msg).toMatch(/cannot connect to Redis/);
    } finally {
      bot.child.kill("SIGKILL");
    }
  });

  it("fails the start with a message naming the bad config field", async () => {
    const config = path.join(dir, "bad.yaml");
    fs.writeFileSync(config, "tenants:\n  acme:\n    users:\n      alice: { apiKey: 7 }\n");
    const bot = await spawnBot({ DATABASE_URL: `file:${path.join(dir, "h3.db")}`, HOLDFAST_CONFIG: config });
    expect(await bot.exited).toBe(1);
    expect(bot.logs.find((l) => l.level === 60)?.msg).toMatch(/tenants\.acme\.users\.alice\.apiKey/);
  });
});
