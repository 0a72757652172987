import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { listReconciliations } from "../../src/store/outbox/review";
import { createWaitingRun, declareDestinations } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { createHarness, type Harness } from "../support/harness";

const log = pino({ level: "silent" });
const noDelay = { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 };

describe.each(PROVIDERS)("approved actions and the outbox API on %s", (provider) => {
  let h: Harness;
  let receiver: EffectReceiver;
  let destination: string;
  beforeEach(async () => {
    h = await createHarness(provider);
    receiver = await startEffectReceiver();
    destination = `${receiver.url}/effects`;
    await declareDestinations(h, { [destination]: "none" });
  });
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  const approve = async (id: string) => {
    const run = await createWaitingRun(h, { id, destination, deadline: new Date(Date.now() + 3_600_000) });
    const body = { eventId: `click-${id}`, action: "approve", version: run.version, digest: run.digest };
    expect((await h.call("POST", `/v1/runs/${id}/decisions`, "rita", body)).json.result).toBe("approved");
    return run;
  };
  const loop = () => createDeliveryLoop({ store: h.ctx.store, log, pollMs: 60_000, retry: noDelay });

  it("holds an approved action while the agent is paused, and delivers it once after resume", async () => {
    expect((await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" })).status).toBe(200);
    await approve("held-1"); // recording a decision is not delivering: allowed while paused
    const worker = loop();
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.calls).toHaveLength(0);
    expect((await h.call("GET", "/v1/runs/held-1", "rita")).json).toMatchObject({
      state: "approved",
      delivery: { state: "PLANNED", attempts: 0 },
    });
    expect((await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {})).status).toBe(200);
    while ((await worker.runOnce()) > 0);
    await worker.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["acme:held-1:1:send-invoice"]);
    expect(receiver.calls[0]?.body).toMatchObject({ run: "held-1", operation: "send-invoice", version: 1 });
    expect((await h.call("GET", "/v1/runs/held-1", "rita")).json.delivery.state).toBe("ACKNOWLEDGED");
  });

  it("shows a NEEDS_REVIEW item with digest, destination, key and last attempt, and reconciles it once", async () => {
    receiver.behave = () => ({ kind: "apply-then-drop" });
    const run = await approve("unsure-1");
    const worker = loop();
    while ((await worker.runOnce()) > 0);
    await worker.stop();

    // The principal sees the full last result; a member only its class (design.md section 11).
    expect((await h.call("GET", "/v1/outbox?state=NEEDS_REVIEW", "mia")).json.items[0].lastResult).toBe(
      "outcome unknown",
    );
    const listed = await h.call("GET", "/v1/outbox?state=NEEDS_REVIEW", "alice");
    expect(listed.status).toBe(200);
    expect(listed.json.items).toHaveLength(1);
    const item = listed.json.items[0];
    expect(item).toMatchObject({
      key: "acme:unsure-1:1:send-invoice",
      kind: "action",
      runId: "unsure-1",
      state: "NEEDS_REVIEW",
      digest: run.digest,
      destination,
      contract: "none",
      attempts: 1,
    });
    expect(Date.parse(item.lastAttemptAt)).toBeGreaterThan(0);
    expect(item.lastResult).toMatch(/^outcome unknown after attempt 1 at .*: .*contract 'none'/);
    expect((await h.call("GET", "/v1/outbox?state=NEEDS_REVIEW", "gina")).json.items).toEqual([]);
    expect((await h.call("GET", "/v1/outbox?state=BOGUS", "mia")).status).toBe(400);

    const url = `/v1/outbox/${encodeURIComponent(item.key)}/reconcile`;
    const body = { resolution: "delivered", note: "the invoice is in the customer's account" };
    expect(await h.call("POST", url, "mia", body)).toMatchObject({ status: 403, json: { error: "forbidden" } });
    expect(await h.call("POST", url, "gina", body)).toMatchObject({ status: 404 });
    expect(await h.call("POST", url, "alice", { resolution: "maybe", note: "x" })).toMatchObject({ status: 400 });
    expect(await listReconciliations(h.ctx.store.db, item.key)).toHaveLength(0);

    const done = await h.call("POST", url, "alice", body);
    expect(done).toMatchObject({ status: 200, json: { key: item.key, state: "ACKNOWLEDGED" } });
    expect(await h.call("POST", url, "ada", body)).toMatchObject({ status: 409, json: { error: "not_needs_review" } });
    const audit = await listReconciliations(h.ctx.store.db, item.key);
    expect(audit).toEqual([
      expect.objectContaining({
        actorId: "acme:alice",
        resolution: "delivered",
        fromState: "NEEDS_REVIEW",
        toState: "ACKNOWLEDGED",
        lastResult: item.lastResult,
      }),
    ]);
    expect(receiver.calls).toHaveLength(1);
  });

  it("sends again with the same key when an admin reconciles with retry", async () => {
    receiver.behave = (_c, index) => (index === 0 ? { kind: "apply-then-drop" } : { kind: "ok" });
    await approve("unsure-2");
    const worker = loop();
    while ((await worker.runOnce()) > 0);
    const url = "/v1/outbox/acme%3Aunsure-2%3A1%3Asend-invoice/reconcile";
    const res = await h.call("POST", url, "ada", { resolution: "retry", note: "checked: nothing arrived" });
    expect(res.json.state).toBe("PLANNED");
    while ((await worker.runOnce()) > 0);
    await worker.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["acme:unsure-2:1:send-invoice", "acme:unsure-2:1:send-invoice"]);
    expect((await h.call("GET", "/v1/outbox?state=ACKNOWLEDGED", "ada")).json.items).toHaveLength(1);
  });
});
