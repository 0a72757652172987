import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { Provider } from "../../src/store/connection/client";
import { startTelegramFake } from "../fakes/telegram-fake";
import { AGENT_KEY } from "../support/approvals";
import { type BotProcess, isServing, spawnBot } from "../support/bot-process";
import { createTestDatabase, PROVIDERS, type TestDatabase } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { EXAMPLE_CONFIG, KEYS } from "../support/harness";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";
import { until } from "../support/until";

/**
 * issue 22: maintenance windows with real processes, on both databases. SIGTERM during a slow delivery
 * drains (503 on /healthz, 200 on /livez) and records STOPPED; a SIGKILL mid-send is found at the next
 * start and classified by the effect's contract; a receipt recorded before a SIGKILL is left alone.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-maint-"));
const prefixes: string[] = [];
const databases: TestDatabase[] = [];
let receiver: EffectReceiver;
let config: string;
const RETAINED = () => `${receiver.url}/effects`;
const UNKEYED = () => `${receiver.url}/plain`;
const LOOKED_UP = () => `${receiver.url}/looked`;

beforeAll(async () => {
  receiver = await startEffectReceiver({ dedupe: true });
  const directory = parse(fs.readFileSync(EXAMPLE_CONFIG, "utf8"));
  directory.tenants.acme.agents["ops-agent"].destinations = {
    [RETAINED()]: "key-retained 24h",
    [UNKEYED()]: "none",
    [LOOKED_UP()]: `none lookup ${receiver.url}/status`,
  };
  config = path.join(dir, "holdfast.yaml");
  fs.writeFileSync(config, stringify(directory));
});
afterAll(async () => {
  await receiver.close();
  for (const prefix of prefixes) await forgetPrefix(REDIS_URL, prefix);
  for (const db of databases) await db.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function api(bot: BotProcess, method: string, url: string, key?: string, body?: unknown) {
  const response = await fetch(`${bot.url}${url}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

async function databaseUrl(provider: Provider, name: string): Promise<string> {
  if (provider === "sqlite") return `file:${path.join(dir, `${name}.db`)}`;
  const db = await createTestDatabase("postgresql");
  databases.push(db);
  return db.url;
}

function envFor(url: string, instance: string, extra: Record<string, string> = {}) {
  const prefix = `hf-maint-${crypto.randomUUID().slice(0, 8)}`;
  prefixes.push(prefix);
  return {
    DATABASE_URL: url,
    REDIS_URL,
    HOLDFAST_CONFIG: config,
    HOLDFAST_QUEUE_PREFIX: prefix,
    HOLDFAST_INSTANCE: instance,
    HOLDFAST_DELIVERY_LEASE_MS: "60000", // longer than each test: only the classification frees a lease
    HOLDFAST_HEARTBEAT_INTERVAL: "500ms",
    ...extra,
  };
}

async function start(env: Record<string, string>): Promise<BotProcess> {
  const bot = await spawnBot(env);
  await bot.waitForLog(isServing, 60_000);
  return bot;
}

/** An approved run whose action goes to `destination`; returns its action key. */
async function approveRun(bot: BotProcess, id: string, destination: string): Promise<string> {
  const created = await api(bot, "POST", "/v1/runs", AGENT_KEY, {
    id,
    agent: "ops-agent",
    operation: "pay",
    destination,
    packet: { amount: 42 },
    reviewers: ["rita"],
    deadline: new Date(Date.now() + 3_600_000).toISOString(),
  });
  expect(created.status).toBe(201);
  const decision = { eventId: `click-${id}`, action: "approve", version: 1, digest: created.json.digest };
  expect((await api(bot, "POST", `/v1/runs/${id}/decisions`, KEYS.rita, decision)).json.result).toBe("approved");
  return `acme:${id}:1:pay`;
}

const instanceRow = async (bot: BotProcess, name: string) =>
  (await api(bot, "GET", "/v1/instances", KEYS.ada)).json.items.find((i: any) => i.instance === name);
const outboxItem = async (bot: BotProcess, key: string) =>
  (await api(bot, "GET", "/v1/outbox?limit=100", KEYS.ada)).json.items.find((i: any) => i.key === key);
const callsFor = (key: string) => receiver.calls.filter((c) => c.key === key).length;

describe.each(PROVIDERS)("maintenance with real processes on %s", (provider) => {
  it("SIGTERM during a slow delivery: 503 on /healthz and 200 on /livez while DRAINING, sent once, STOPPED, exit 0, then previousShutdown clean", {
    timeout: 120_000,
  }, async () => {
    const url = await databaseUrl(provider, "sigterm");
    const name = `sigterm-${provider}`;
    const env = envFor(url, name);
    const bot = await start(env);
    expect((await api(bot, "GET", "/healthz")).json.state).toBe("RUNNING");
    const id = `slow-${provider}`;
    const previous = receiver.behave;
    receiver.behave = (call) => (call.key === `acme:${id}:1:pay` ? { kind: "slow", ms: 2500 } : previous(call, 0));
    try {
      const key = await approveRun(bot, id, RETAINED());
      await until(
        async () => callsFor(key),
        (n) => n === 1,
      );
      bot.child.kill("SIGTERM");
      const health = await until(
        () => api(bot, "GET", "/healthz"),
        (r) => r.status === 503,
      ).catch((error) => {
        throw new Error(`${error.message}\n${bot.logs.map((l) => JSON.stringify(l)).join("\n")}`);
      });
      expect(health.json).toEqual({ state: "DRAINING" });
      const live = await api(bot, "GET", "/livez");
      expect(live).toEqual({ status: 200, json: { state: "DRAINING" } });
      expect(await bot.exited).toBe(0);
      expect(callsFor(key)).toBe(1);
      expect(receiver.applied.get(key)).toBe(1);
      const next = await start(env);
      try {
        expect(await instanceRow(next, name)).toMatchObject({ state: "RUNNING", previousShutdown: "clean" });
        expect((await outboxItem(next, key))?.state).toBe("ACKNOWLEDGED");
        expect(next.logs.some((l) => String(l.msg).startsWith("unclean stop"))).toBe(false);
      } finally {
        next.child.kill("SIGTERM");
        await next.exited;
      }
    } finally {
      receiver.behave = previous;
    }
  });

  it("SIGKILL after the request was sent, before its answer: the next start classifies it by its contract, counts it and says so once", {
    timeout: 120_000,
  }, async () => {
    const url = await databaseUrl(provider, "sigkill");
    const name = `sigkill-${provider}`;
    const env = envFor(url, name);
    const bot = await start(env);
    const retained = `acme:kill-r-${provider}:1:pay`;
    const plain = `acme:kill-p-${provider}:1:pay`;
    const acked = `acme:kill-a-${provider}:1:pay`;
    const looked = `acme:kill-l-${provider}:1:pay`;
    const previous = receiver.behave;
    // The receipt of this one is recorded before the kill: it must not be touched after it (n8n #23807).
    expect(await approveRun(bot, `kill-a-${provider}`, RETAINED())).toBe(acked);
    await until(
      () => outboxItem(bot, acked),
      (i) => i?.state === "ACKNOWLEDGED",
    );
    receiver.behave = (call) => {
      if (call.key === retained || call.key === plain) return { kind: "slow", ms: 60_000 };
      if (call.key === looked) return { kind: "apply-then-hold", ms: 60_000 }; // done, but never answered
      return previous(call, 0);
    };
    try {
      await approveRun(bot, `kill-r-${provider}`, RETAINED());
      await approveRun(bot, `kill-p-${provider}`, UNKEYED());
      await approveRun(bot, `kill-l-${provider}`, LOOKED_UP());
      await until(
        async () => callsFor(retained) + callsFor(plain) + callsFor(looked),
        (n) => n === 3,
      );
      bot.child.kill("SIGKILL");
      await bot.exited;
    } finally {
      receiver.behave = previous;
    }
    // The next start has Telegram on: the principal of the agent concerned (alice) gets one message.
    const token = `654321:MAINT-${provider}`;
    const telegram = await startTelegramFake(token);
    const next = await start({ ...env, TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: telegram.url });
    try {
      const warn = await next.waitForLog((l) => String(l.msg).startsWith(`unclean stop of ${name} found`));
      const told = await telegram.waitFor(
        (c) =>
          c.path.endsWith("/sendMessage") && String((c.json as { text?: string }).text).includes("stopped uncleanly"),
        10_000,
      );
      expect(String((told.json as { chat_id: unknown }).chat_id)).toBe("7000002");
      expect(warn.level).toBe(40);
      expect(warn.counts).toEqual({ retry_same_key: 1, needs_review: 1, lookup: 1 });
      expect(next.logs.filter((l) => String(l.msg).startsWith("unclean stop")).length).toBe(1);
      expect(await instanceRow(next, name)).toMatchObject({ previousShutdown: "unclean" });
      // key-retained: sent again under the same key, applied once at the receiver.
      await until(
        () => outboxItem(next, retained),
        (i) => i?.state === "ACKNOWLEDGED",
      );
      expect(callsFor(retained)).toBe(2);
      expect(receiver.applied.get(retained)).toBe(1);
      // no deduplication, no lookup: NEEDS_REVIEW with its three facts, never sent again.
      const review = await outboxItem(next, plain);
      expect(review.state).toBe("NEEDS_REVIEW");
      expect(review.lastResult).toMatch(/outcome unknown after attempt 1 at \d{4}-/);
      expect(review.destination).toBe(UNKEYED());
      expect(review.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(callsFor(plain)).toBe(1);
      // a lookup exists: asked, found applied, recorded as such, never sent again.
      const found = await outboxItem(next, looked);
      expect(found.state).toBe("OBSERVED");
      expect(found.lastResult).toMatch(/^found by lookup after attempt 1/);
      expect(callsFor(looked)).toBe(1);
      expect(receiver.applied.get(looked)).toBe(1);
      // acknowledged before the kill: untouched.
      expect((await outboxItem(next, acked)).state).toBe("ACKNOWLEDGED");
      expect(callsFor(acked)).toBe(1);
      const metrics = await api(next, "GET", "/metrics");
      expect(String(metrics.json)).toMatch(/^holdfast_unclean_boots_total 1$/m);
      expect(String(metrics.json)).toMatch(/^holdfast_maintenance_state\{state="RUNNING"\} 1$/m);
      const messages = telegram
        .callsTo("sendMessage")
        .filter((c) => String((c.json as { text?: string }).text).includes("stopped uncleanly"));
      expect(messages.length).toBe(1);
      expect(String((messages[0]!.json as { text: string }).text)).toMatch(
        /1 retried with the same key, 1 looked up, 1 need review/,
      );
    } finally {
      next.child.kill("SIGTERM");
      await next.exited;
      await telegram.close();
    }
  });

  it("a drain that cannot finish (a receiver that never answers) ends at the deadline, with the item classified", {
    timeout: 120_000,
  }, async () => {
    const url = await databaseUrl(provider, "deadline");
    const name = `deadline-${provider}`;
    const env = envFor(url, name, { HOLDFAST_DRAIN_TIMEOUT: "2s" });
    const bot = await start(env);
    const key = `acme:hang-${provider}:1:pay`;
    const previous = receiver.behave;
    receiver.behave = (call) => (call.key === key ? { kind: "slow", ms: 60_000 } : previous(call, 0));
    try {
      await approveRun(bot, `hang-${provider}`, UNKEYED());
      await until(
        async () => callsFor(key),
        (n) => n === 1,
      );
      const signalled = Date.now();
      bot.child.kill("SIGTERM");
      expect(await bot.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(20_000);
      const classified = await bot.waitForLog((l) => String(l.msg).startsWith("drain deadline: 1 deliveries"));
      expect(classified.classified).toEqual([{ id: key, step: "needs_review", to: "NEEDS_REVIEW" }]);
    } finally {
      receiver.behave = previous;
    }
    const next = await start(env);
    try {
      expect(await instanceRow(next, name)).toMatchObject({ previousShutdown: "clean" });
      const item = await outboxItem(next, key);
      expect(item.state).toBe("NEEDS_REVIEW");
      expect(item.lastResult).toMatch(/outcome unknown after attempt 1/);
      await new Promise((r) => setTimeout(r, 1500));
      expect(callsFor(key)).toBe(1); // never sent again
    } finally {
      next.child.kill("SIGTERM");
      await next.exited;
    }
  });

  it("a second deployment (another database) on the same Redis and prefix is refused at start", {
    timeout: 120_000,
  }, async () => {
    const first = envFor(await databaseUrl(provider, "first"), `first-${provider}`);
    const bot = await start(first);
    try {
      // A Redis that lost its data is claimed again (at the next heartbeat).
      const redis = new Redis(REDIS_URL);
      const key = `${first.HOLDFAST_QUEUE_PREFIX}:deployment`;
      const claim = JSON.parse((await redis.get(key)) ?? "{}");
      expect(claim.database).toMatch(provider === "sqlite" ? /^SQLite file / : /^PostgreSQL holdfast_test_/);
      await redis.del(key);
      await until(
        () => redis.get(key),
        (value) => value !== null && JSON.parse(value).id === claim.id,
      );
      redis.disconnect();
      const second = await spawnBot({
        ...envFor(await databaseUrl(provider, "second"), `second-${provider}`),
        HOLDFAST_QUEUE_PREFIX: first.HOLDFAST_QUEUE_PREFIX,
      });
      expect(await second.exited).toBe(1);
      const fatal = second.logs.find((l) => l.level === 60);
      expect(fatal?.msg).toMatch(
        new RegExp(
          `^redis ${REDIS_URL.replace(/[/.]/g, "\\$&")} prefix ${first.HOLDFAST_QUEUE_PREFIX} is used by another Holdfast deployment \\(database .+\\); give this one its own HOLDFAST_QUEUE_PREFIX or its own Redis$`,
        ),
      );
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
  });
});
