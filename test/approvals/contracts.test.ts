import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { findOutboxItem } from "../../src/store/outbox/marks";
import { planDelivery } from "../../src/store/outbox/plan";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { createHarness, type Harness } from "../support/harness";

const HOUR = 3_600_000;
const T0 = comingDay(0);
const log = pino({ level: "silent" });

type Expected = "retried" | "review" | "lookup";

/**
 * design.md section 6 with an injected clock: the first response is dropped after the receiver applied
 * the effect; the next attempt comes at a simulated age. A destination that deduplicates is emulated by
 * the receiver's `dedupe`, so a resend within the contract applies nothing twice.
 */
const CASES: Array<[contract: string, ageHours: number, expected: Expected]> = [
  ["none", 1, "review"],
  ["none", 23, "review"],
  ["none", 25, "review"],
  ["key-retained 24h", 1, "retried"],
  ["key-retained 24h", 23, "retried"],
  ["key-retained 24h", 25, "review"],
  ["unique-external-id", 1, "retried"],
  ["unique-external-id", 23, "retried"],
  ["unique-external-id", 25, "retried"],
  ["none lookup {receiver}/status", 1, "lookup"],
  ["key-retained 24h lookup {receiver}/status", 25, "lookup"],
];

describe.each(PROVIDERS)("receiving contracts after a dropped response, on %s", (provider) => {
  let h: Harness;
  let receiver: EffectReceiver;
  let clock: Date;
  beforeEach(async () => {
    clock = T0;
    h = await createHarness(provider, () => clock);
  });
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  it.each(CASES)("%s at %i h: %s", async (contractText, ageHours, expected) => {
    receiver = await startEffectReceiver({ dedupe: contractText !== "none" });
    receiver.behave = (_call, index) => (index === 0 ? { kind: "apply-then-drop" } : { kind: "ok" });
    const contract = contractText.replace("{receiver}", receiver.url);
    const key = "run-9:1:send";
    await planDelivery(
      h.ctx.store,
      {
        id: key,
        kind: "action",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        runId: "run-9",
        digest: "sha256:feed",
        destination: `${receiver.url}/effects`,
        contract,
        payload: { n: 1 },
      },
      new Date(),
    );
    // A long first backoff so the retry happens at the simulated age, not before.
    const retry = { maxAttempts: 5, baseDelayMs: HOUR / 2, maxDelayMs: HOUR / 2 };
    const loop = createDeliveryLoop({
      store: h.ctx.store,
      log,
      now: () => clock,
      retry,
      random: () => 0,
      pollMs: 60_000,
    });
    expect(await loop.runOnce()).toBe(1);
    expect((await findOutboxItem(h.ctx.store.db, key))?.state).toBe("DISPATCHED");

    clock = new Date(T0.getTime() + ageHours * HOUR);
    expect(await loop.runOnce()).toBe(1);
    await loop.stop();
    const item = (await findOutboxItem(h.ctx.store.db, key))!;
    expect(receiver.applied.get(key)).toBe(1); // never two records for one action
    if (expected === "retried") {
      expect(receiver.calls.map((c) => c.key)).toEqual([key, key]);
      expect(item).toMatchObject({ state: "ACKNOWLEDGED", attempts: 2 });
    } else if (expected === "lookup") {
      expect(receiver.calls).toHaveLength(1);
      expect(item.state).toBe("OBSERVED");
      expect(item.lastResult).toMatch(/^found by lookup after attempt 1/);
    } else {
      expect(receiver.calls).toHaveLength(1);
      expect(item.state).toBe("NEEDS_REVIEW");
      expect(item.lastResult?.startsWith(`outcome unknown after attempt 1 at ${T0.toISOString()}`)).toBe(true);
    }
  });
});
