import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { findOutboxItem } from "../../src/store/outbox/marks";
import { planDelivery } from "../../src/store/outbox/plan";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

/** A pino logger writing JSON lines into an array. */
function capturedLog() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

describe.each(PROVIDERS)("a destination that is down on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider);
  });
  afterEach(() => h.close());

  it("retries a refused connection as PLANNED (contract none), warns per attempt, and fails at error", async () => {
    const { log, lines } = capturedLog();
    const destination = "http://127.0.0.1:1/down"; // nothing listens on port 1
    await planDelivery(
      h.ctx.store,
      {
        id: "acme:ops-agent:tick:2026-12-01T09:00:00.000Z",
        kind: "trigger",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        destination,
        contract: "none",
        payload: {},
      },
      new Date(),
    );
    const loop = createDeliveryLoop({
      store: h.ctx.store,
      log,
      pollMs: 60_000,
      retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
    });
    try {
      await loop.runOnce();
      const afterOne = await findOutboxItem(h.ctx.store.db, "acme:ops-agent:tick:2026-12-01T09:00:00.000Z");
      expect(afterOne?.state).toBe("PLANNED"); // not NEEDS_REVIEW: the request never left
      expect(afterOne?.lastResult).toMatch(/^not sent: ECONNREFUSED/);
      await loop.runOnce();
      await loop.runOnce();
      const last = await findOutboxItem(h.ctx.store.db, "acme:ops-agent:tick:2026-12-01T09:00:00.000Z");
      expect(last).toMatchObject({ state: "FAILED", attempts: 3 });
    } finally {
      await loop.stop();
    }
    const warns = lines.filter((l) => l.level === 40);
    expect(warns).toHaveLength(2);
    for (const [i, w] of warns.entries()) {
      expect(w).toMatchObject({
        msg: "delivery attempt failed",
        key: "acme:ops-agent:tick:2026-12-01T09:00:00.000Z",
        destination,
        class: "not_sent",
        attempt: i + 1,
        state: "PLANNED",
      });
      expect(Number.isNaN(Date.parse(String(w.nextAttemptAt)))).toBe(false);
    }
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: "delivery given up",
        class: "not_sent",
        state: "FAILED",
        attempt: 3,
        destination,
      }),
    ]);
  });
});
