import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { FaultPoint as CrashPoint } from "../../src/policy/faults";
import { AGENT_KEY } from "../support/approvals";
import { type BotProcess, isServing, spawnBot } from "../support/bot-process";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { EXAMPLE_CONFIG, KEYS } from "../support/harness";
import { until } from "../support/until";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `hf-recovery-${crypto.randomUUID()}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-recovery-"));

async function api(bot: BotProcess, method: string, url: string, key: string, body?: unknown) {
  try {
    const response = await fetch(`${bot.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, json: (await response.json()) as any };
  } catch {
    return null; // the process died before it answered
  }
}

/**
 * issue 4, process recovery: the real bot is SIGKILLed at each boundary (HOLDFAST_CRASH_AT, see
 * src/policy/faults.ts), restarted on the same database, and must end with exactly one applied record
 * per action at the receiver and nothing pending. The receiver deduplicates keys, as the declared
 * contract `key-retained 24h` promises.
 */
describe("approval and delivery survive SIGKILL at every boundary", () => {
  let receiver: EffectReceiver;
  let config: string;
  const bots: BotProcess[] = [];

  beforeAll(async () => {
    receiver = await startEffectReceiver({ dedupe: true });
    const directory = parse(fs.readFileSync(EXAMPLE_CONFIG, "utf8"));
    directory.tenants.acme.agents["ops-agent"].destinations = { [`${receiver.url}/effects`]: "key-retained 24h" };
    config = path.join(dir, "holdfast.yaml");
    fs.writeFileSync(config, stringify(directory));
  });
  afterEach(() => {
    for (const bot of bots.splice(0)) bot.child.kill("SIGKILL");
  });
  afterAll(async () => {
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  async function start(database: string, crashAt?: CrashPoint): Promise<BotProcess> {
    const bot = await spawnBot({
      DATABASE_URL: `file:${path.join(dir, database)}`,
      REDIS_URL,
      HOLDFAST_CONFIG: config,
      // One deployment per database: each its own prefix (a second database on one prefix is refused at start).
      HOLDFAST_QUEUE_PREFIX: `${PREFIX}-${database.replace(/\W/g, "")}`,
      HOLDFAST_DELIVERY_LEASE_MS: "1000",
      ...(crashAt ? { HOLDFAST_CRASH_AT: crashAt } : {}),
    });
    bots.push(bot);
    await bot.waitForLog(isServing);
    return bot;
  }

  const runOf = (bot: BotProcess, id: string) => api(bot, "GET", `/v1/runs/${id}`, AGENT_KEY).then((r) => r?.json);
  const delivered = (bot: BotProcess, id: string) =>
    until(
      () => runOf(bot, id),
      (run) => run?.delivery?.state === "ACKNOWLEDGED",
    );

  async function createRun(bot: BotProcess, id: string) {
    const created = await api(bot, "POST", "/v1/runs", AGENT_KEY, {
      id,
      agent: "ops-agent",
      operation: "pay",
      destination: `${receiver.url}/effects`,
      packet: { amount: 42 },
      reviewers: ["rita"],
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(created?.status).toBe(201);
    return { eventId: `click-${id}`, action: "approve", version: 1, digest: created!.json.digest as string };
  }
  const decide = (bot: BotProcess, id: string, decision: unknown) =>
    api(bot, "POST", `/v1/runs/${id}/decisions`, KEYS.rita, decision);

  async function expectSettled(bot: BotProcess, key: string) {
    expect(receiver.applied.get(key)).toBe(1);
    for (const state of ["PLANNED", "DISPATCHED", "NEEDS_REVIEW"]) {
      expect((await api(bot, "GET", `/v1/outbox?state=${state}`, KEYS.ada))?.json.items).toEqual([]);
    }
    bot.child.kill("SIGTERM");
    expect(await bot.exited).toBe(0);
  }
  const callsFor = (key: string) => receiver.calls.filter((c) => c.key === key).length;

  it("before the approval commits: the run stays waiting and nothing is delivered", async () => {
    const first = await start("before-commit.db", "before-approve-commit");
    const decision = await createRun(first, "r-before");
    expect(await decide(first, "r-before", decision)).toBeNull();
    expect(await first.exited).toBeNull(); // killed by a signal
    const second = await start("before-commit.db");
    expect(await runOf(second, "r-before")).toMatchObject({ state: "waiting", version: 1 });
    expect(callsFor("acme:r-before:1:pay")).toBe(0);
    expect((await decide(second, "r-before", decision))?.json.result).toBe("approved");
    await delivered(second, "r-before");
    await expectSettled(second, "acme:r-before:1:pay");
  });

  it("after the commit, before dispatch: the restarted bot delivers it once", async () => {
    const first = await start("after-commit.db", "after-approve-commit");
    const decision = await createRun(first, "r-commit");
    expect(await decide(first, "r-commit", decision)).toBeNull();
    await first.exited;
    expect(callsFor("acme:r-commit:1:pay")).toBe(0);
    const second = await start("after-commit.db");
    expect(await delivered(second, "r-commit")).toMatchObject({ state: "approved", version: 2 });
    expect((await decide(second, "r-commit", decision))?.json.result).toBe("duplicate");
    await expectSettled(second, "acme:r-commit:1:pay");
    expect(callsFor("acme:r-commit:1:pay")).toBe(1);
  });

  it("after the receiver applied it, before the local acknowledgement: resent with the same key, applied once", async () => {
    const first = await start("before-ack.db", "before-acknowledge");
    const decision = await createRun(first, "r-ack");
    await decide(first, "r-ack", decision); // may or may not answer before the delivery kills the process
    await first.exited;
    expect(receiver.applied.get("acme:r-ack:1:pay")).toBe(1);
    const second = await start("before-ack.db");
    await delivered(second, "r-ack");
    expect(callsFor("acme:r-ack:1:pay")).toBe(2); // the retry inside the contract's window, deduplicated
    await expectSettled(second, "acme:r-ack:1:pay");
  });

  it("after everything was acknowledged: a restart sends nothing again", async () => {
    const first = await start("after-ack.db");
    const decision = await createRun(first, "r-done");
    expect((await decide(first, "r-done", decision))?.json.result).toBe("approved");
    await delivered(first, "r-done");
    first.child.kill("SIGKILL");
    await first.exited;
    const second = await start("after-ack.db");
    await new Promise((r) => setTimeout(r, 1500)); // longer than the lease: anything claimable would be claimed
    expect((await runOf(second, "r-done"))?.delivery.state).toBe("ACKNOWLEDGED");
    expect(callsFor("acme:r-done:1:pay")).toBe(1);
    await expectSettled(second, "acme:r-done:1:pay");
  });
});
