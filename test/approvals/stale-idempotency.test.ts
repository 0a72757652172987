import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { createWaitingRun, declareDestinations } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";
import { createHarness, type Harness } from "../support/harness";

const log = pino({ level: "silent" });
const noDelay = { maxAttempts: 5, baseDelayMs: 0, maxDelayMs: 0 };
const DAY = 24 * 3_600_000;

// design.md section 12: a held action whose destination keeps keys 24 h, approved more than 24 h before the
// resume, goes out with retries off: an uncertain outcome goes to review instead of a second send.
describe.each(PROVIDERS)("held actions past their destination's key window on %s", (provider) => {
  let h: Harness;
  let receiver: EffectReceiver;
  let destination: string;
  let offset = 0;
  beforeEach(async () => {
    offset = 0;
    h = await createHarness(provider, () => new Date(Date.now() + offset));
    receiver = await startEffectReceiver();
    destination = `${receiver.url}/effects`;
    await declareDestinations(h, { [destination]: "key-retained 24h" });
  });
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  const approve = async (id: string) => {
    const run = await createWaitingRun(h, { id, destination, deadline: new Date(Date.now() + 3_600_000) });
    const body = { eventId: `click-${id}`, action: "approve", version: run.version, digest: run.digest };
    expect((await h.call("POST", `/v1/runs/${id}/decisions`, "rita", body)).json.result).toBe("approved");
  };

  it("warns and lists the action, sends it once, and an uncertain outcome goes to NEEDS_REVIEW", async () => {
    expect((await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" })).status).toBe(200);
    await approve("old-1");
    expect(
      (await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true })).json.checklist[4],
    ).toMatchObject({
      check: "idempotency",
      status: "ok",
    });
    offset = DAY + 60_000; // a day and a minute later: the destination no longer remembers the key
    const dry = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(dry.json.checklist[4]).toMatchObject({
      check: "idempotency",
      status: "warn",
      actions: ["acme:old-1:1:send-invoice"],
    });
    expect(dry.json.allowed).toBe(true);
    const resumed = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {});
    expect(resumed.status).toBe(200);

    receiver.behave = () => ({ kind: "apply-then-drop" });
    const worker = createDeliveryLoop({ store: h.ctx.store, log, pollMs: 60_000, retry: noDelay });
    while ((await worker.runOnce()) > 0);
    await worker.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["acme:old-1:1:send-invoice"]);
    expect((await h.call("GET", "/v1/runs/old-1", "rita")).json.delivery.state).toBe("NEEDS_REVIEW");
  });

  it("an action still inside its window keeps its retries: the uncertain send is retried with the same key", async () => {
    await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    await approve("fresh-1");
    expect((await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {})).status).toBe(200);
    receiver.behave = (_call, index) => (index === 0 ? { kind: "apply-then-drop" } : { kind: "ok" });
    const worker = createDeliveryLoop({ store: h.ctx.store, log, pollMs: 60_000, retry: noDelay });
    while ((await worker.runOnce()) > 0);
    await worker.stop();
    expect(receiver.calls.map((c) => c.key)).toEqual(["acme:fresh-1:1:send-invoice", "acme:fresh-1:1:send-invoice"]);
  });
});
