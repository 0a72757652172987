import crypto from "node:crypto";
import { Redis } from "ioredis";
import { startHeld } from "../../src/bot/main/held-wiring";
import type { HeldRuntime } from "../../src/queue/held/runtime";
import type { Provider, Store } from "../../src/store/connection/client";
import { type StoredTrigger, upsertTrigger } from "../../src/store/held/triggers";
import { type EffectReceiver, startEffectReceiver } from "./effect-receiver";
import { createHarness, type Harness } from "./harness";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface HeldHarness extends Harness {
  runtime: HeldRuntime;
  receiver: EffectReceiver;
  prefix: string;
  /** Stops the runtime and starts a fresh one on the same database (a restart without the HTTP layer). */
  restart(redisUrl?: string): Promise<void>;
  until<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, timeoutMs?: number): Promise<T>;
}

/**
 * A harness plus the held runtime (triggers, releases, drains, delivery) on real Redis under a queue prefix
 * of its own, with the demo agent's webhook pointed at a local effect receiver.
 */
export async function createHeldHarness(
  provider: Provider,
  options: { redisUrl?: string; drainTimeoutMs?: number } = {},
): Promise<HeldHarness> {
  const h = await createHarness(provider);
  h.ctx.drainTimeoutMs = options.drainTimeoutMs ?? 90_000;
  const receiver = await startEffectReceiver();
  await h.ctx.store.db.agent.updateMany({ data: { webhook: `${receiver.url}/agent` } });
  const prefix = `hf-${crypto.randomUUID().slice(0, 8)}`;
  const start = (redisUrl: string) =>
    startHeld(h.ctx, {
      redisUrl,
      prefix,
      reconcileMs: 150,
      delivery: { pollMs: 50, retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 } },
    });
  let redisUrl = options.redisUrl ?? REDIS_URL;
  const held: HeldHarness = {
    ...h,
    runtime: await start(redisUrl),
    receiver,
    prefix,
    async restart(url) {
      await held.runtime.stop();
      h.ctx.events.removeAllListeners();
      redisUrl = url ?? redisUrl;
      held.runtime = await start(redisUrl);
    },
    async until(probe, ok, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (ok(value)) return value;
        if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    async close() {
      await held.runtime.stop();
      await receiver.close();
      await h.close();
      await forgetPrefix(redisUrl, prefix);
    },
  };
  return held;
}

/** Removes every key this harness's queues left in the shared Redis. */
export async function forgetPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/**
 * A trigger of ops-agent's, every minute, misfire `all`, to an address nothing answers on: for tests of held
 * rows and their releases that write occurrences themselves. Registered an hour before `now`.
 */
export const minuteTrigger = (store: Store, now: Date): Promise<StoredTrigger> =>
  upsertTrigger(
    store.db,
    {
      tenantId: "acme",
      agentId: "acme:ops-agent",
      key: "t",
      everyMs: 60_000,
      cron: null,
      tz: null,
      payload: null,
      destination: "http://127.0.0.1:9/x",
      misfire: "all",
      contract: "none",
    },
    new Date(now.getTime() - 3_600_000),
  );
