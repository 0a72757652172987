import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { isServing, spawnBot } from "../support/bot-process";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-service-"));
const prefixes: string[] = [];
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const prefix of prefixes) await forgetPrefix(REDIS_URL, prefix);
});

const freshEnv = (name: string, extra: Record<string, string> = {}) => {
  const prefix = `hf-svc-${crypto.randomUUID().slice(0, 8)}`;
  prefixes.push(prefix);
  return { DATABASE_URL: `file:${path.join(dir, `${name}.db`)}`, REDIS_URL, HOLDFAST_QUEUE_PREFIX: prefix, ...extra };
};

/** Pids still in a process group (ps lists nothing once every member has exited). */
function groupMembers(pgid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "-g", String(pgid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number.parseInt(l, 10))
      .filter((pid) => Number.isSafeInteger(pid));
  } catch {
    return []; // ps exits 1 when it finds no process
  }
}

describe("starting and stopping like a service", () => {
  it("npm start runs the bot as the process that gets the signal: a SIGTERM to npm stops it cleanly and leaves no process", async () => {
    // --ignore-scripts skips prestart (prisma generate), which would rewrite the client other test files use;
    // its other half, the build of dist/ that `npm start` runs, is made here (a fresh clone has none).
    execFileSync("node", ["scripts/build.mjs"], { stdio: "ignore" });
    const bot = await spawnBot(freshEnv("npm", { HOLDFAST_DRAIN_TIMEOUT: "20s" }), {
      command: ["npm", "start", "--silent", "--ignore-scripts"],
      detached: true,
    });
    const pgid = bot.child.pid!;
    try {
      await bot.waitForLog(isServing, 60_000);
      expect(groupMembers(pgid).length).toBeGreaterThanOrEqual(2); // npm and the bot
      process.kill(pgid, 0);
      bot.child.kill("SIGTERM"); // npm only, as a supervisor that started `npm start` does
      expect(await bot.exited).toBe(0);
      for (let i = 0; i < 200 && groupMembers(pgid).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(groupMembers(pgid)).toEqual([]);
      expect(bot.logs.some((l) => l.msg === "stopped cleanly")).toBe(true);
    } finally {
      if (groupMembers(pgid).length) process.kill(-pgid, "SIGKILL");
    }
  });

  it("a second SIGTERM forces the exit, after saying what is still in flight", async () => {
    let received = 0;
    const hanging = http.createServer(() => {
      received++; // never answers: the delivery stays in flight
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const webhook = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/agent`;
    const config = path.join(dir, "hanging.yaml");
    const agentKey = "hanging-agent-key-0001";
    fs.writeFileSync(
      config,
      stringifyYaml({
        tenants: {
          acme: {
            users: { alice: { apiKey: "alice-key-000000001" } },
            agents: { slow: { principal: "alice", webhook, agentKey } },
          },
        },
      }),
    );
    const bot = await spawnBot(freshEnv("hanging", { HOLDFAST_CONFIG: config }));
    try {
      await bot.waitForLog(isServing);
      const posted = await fetch(`${bot.url}/v1/agents/slow/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
        body: JSON.stringify({ eventId: "e1", type: "ping", payload: {} }),
      });
      expect(posted.status).toBeLessThan(300);
      for (let i = 0; i < 100 && received === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(received).toBe(1);
      bot.child.kill("SIGTERM");
      const first = await bot.waitForLog((l) => String(l.msg).startsWith("SIGTERM: shutting down"));
      expect(first.inFlight).toEqual({ deliveries: 1 });
      bot.child.kill("SIGTERM");
      expect(await bot.exited).toBe(1);
      const forced = bot.logs.find((l) => String(l.msg).startsWith("second SIGTERM"));
      expect(forced?.left).toEqual({ deliveries: 1 });
      expect(forced?.msg).toMatch(/1 deliveries in flight/);
      expect(bot.logs.some((l) => l.msg === "stopped cleanly")).toBe(false);
    } finally {
      bot.child.kill("SIGKILL");
      hanging.closeAllConnections();
      hanging.close();
    }
  });
});

describe("the start log and start errors", () => {
  it("says, one line each, the database, Redis, the chat platforms and the URL", async () => {
    const env = freshEnv("facts");
    const bot = await spawnBot(env);
    try {
      const serving = await bot.waitForLog(isServing);
      const messages = bot.logs.map((l) => String(l.msg));
      const file = path.join(dir, "facts.db");
      const database = messages.find((m) => m.startsWith("database: ")) ?? "";
      expect(database.startsWith(`database: SQLite file ${file} (`)).toBe(true);
      expect(database).toMatch(/\(\d+ migrations applied\)$/);
      expect(messages).toContain(`redis: one server at ${REDIS_URL}`);
      expect(messages).toContain("chat platforms: none: API and console only");
      expect(serving.msg).toBe(`holdfast is serving at ${bot.url}`);
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
  });

  it("is readable on a terminal (LOG_FORMAT=pretty): one line per fact with its fields, no JSON", async () => {
    const bot = await spawnBot(freshEnv("pretty", { LOG_FORMAT: "pretty" }));
    try {
      await bot.waitForLog((l) => typeof l.raw === "string" && l.raw.includes("holdfast is serving at"));
      const lines = bot.logs.map((l) => String(l.raw));
      expect(lines.every((l) => !l.startsWith("{"))).toBe(true);
      expect(lines.some((l) => /INFO.*chat platforms: none: API and console only/.test(l))).toBe(true);
      expect(lines.some((l) => /INFO.*database: SQLite file /.test(l))).toBe(true);
      // Each event's fields after its message, as name=value: no raw object, no field over pino's own.
      expect(lines.some((l) => /INFO.*holdfast is serving at \S+ {2}port=\d+ /.test(l))).toBe(true);
      expect(lines.every((l) => !/[{}]/.test(l.replace(/queuePrefix=\S+/, "")))).toBe(true);
      expect(lines.join("\n")).not.toContain("USERLVL");
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
  });

  it("refuses a second process on the same SQLite file at once, naming PostgreSQL, and starts again after a kill", async () => {
    const env = freshEnv("shared");
    const first = await spawnBot(env);
    try {
      await first.waitForLog(isServing);
      const second = await spawnBot(env);
      expect(await second.exited).toBe(1);
      const fatal = second.logs.find((l) => l.level === 60);
      expect(fatal?.code).toBe("database_in_use");
      expect(fatal?.msg).toMatch(/is in use by another Holdfast process \(pid \d+\).*use PostgreSQL/);
      expect(JSON.stringify(second.logs)).not.toContain("WASM_ERROR");
    } finally {
      first.child.kill("SIGKILL"); // leaves its lock file behind
      await first.exited;
    }
    const third = await spawnBot(env);
    await third.waitForLog(isServing);
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);
  });

  it.each([
    [
      "mysql://root@127.0.0.1:3306/test",
      /the scheme 'mysql:' is not supported: use file:<path> \(SQLite\) or postgresql:/,
    ],
    ["holdfast.db", /it is not a database URL: use file:<path> \(SQLite\) or postgresql:/],
  ])("refuses DATABASE_URL=%s, naming the supported schemes", async (url, message) => {
    const bot = await spawnBot({ ...freshEnv("never"), DATABASE_URL: url });
    expect(await bot.exited).toBe(1);
    const fatal = bot.logs.find((l) => l.level === 60);
    expect(fatal?.code).toBe("config_invalid");
    expect(fatal?.msg).toMatch(/^environment variable DATABASE_URL: /);
    expect(fatal?.msg).toMatch(message);
  });
});
