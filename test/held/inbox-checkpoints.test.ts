import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

const AGENT_KEY = "demo-key-acme-ops-agent-0007";

describe.each(PROVIDERS)("awaited inbound events and named checkpoints on %s", (provider) => {
  let h: HeldHarness;
  beforeEach(async () => {
    h = await createHeldHarness(provider);
  });
  afterEach(() => h.close());

  /** Posts with the agent's own key, as its external event sources do. */
  const post = async (body: unknown, key = AGENT_KEY, agent = "ops-agent") => {
    const response = await h.http.inject({
      method: "POST",
      url: `/v1/agents/${agent}/events`,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      payload: JSON.stringify(body),
    });
    return { status: response.statusCode, json: JSON.parse(response.body) };
  };
  const events = () => h.receiver.calls.filter((c) => c.kind === "event");
  const counts = async () => ({
    inbox: await h.ctx.store.db.inboxEvent.count(),
    runs: await h.ctx.store.db.run.count(),
  });

  it("delivers at once while running; holds while paused and delivers in arrival order, each once, after resume", async () => {
    expect((await post({ eventId: "sig-0", type: "signature", payload: { n: 0 } })).json.state).toBe("accepted");
    await h.until(
      () => events().length,
      (n) => n === 1,
    );
    await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    for (let n = 1; n <= 6; n++) {
      const answer = await post({ eventId: `sig-${n}`, type: "signature", payload: { n } });
      expect(answer).toMatchObject({ status: 202, json: { state: "held", duplicate: false } });
    }
    expect((await post({ eventId: "sig-3", type: "signature", payload: { n: 3 } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(events()).toHaveLength(1);
    const preflight = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(preflight.json.held.inboundEvents).toBe(6);
    expect((await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {})).status).toBe(200);
    await h.until(
      () => events().length,
      (n) => n === 7,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(events().map((c) => (c.body as { payload: { n: number } }).payload.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(events().map((c) => c.key)).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => `acme:ops-agent:event:sig-${n}`));
    // Sequential: each event arrived only after the one before had been answered.
    const times = events().map((c) => c.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("returns the recorded receipt for a duplicate and 409 conflict for a changed body, storing nothing new", async () => {
    const first = await post({ eventId: "v-1", type: "vendor.reply", payload: { ok: true } });
    expect(first.status).toBe(202);
    const again = await post({ eventId: "v-1", type: "vendor.reply", payload: { ok: true } });
    expect(again).toMatchObject({ status: 200, json: { ...first.json, duplicate: true } });
    const changed = await post({ eventId: "v-1", type: "vendor.reply", payload: { ok: false } });
    expect(changed).toMatchObject({ status: 409, json: { error: "conflict" } });
    expect(await counts()).toEqual({ inbox: 1, runs: 0 });
  });

  it("moves a run through its checkpoints one step at a time and refuses skips and repeats", async () => {
    const start = await post({
      eventId: "c-1",
      type: "onboarding",
      payload: {},
      stateDelta: { runId: "onb-1", checkpoint: "START", set: { employee: "kim" } },
    });
    expect(start.json.run).toEqual({ id: "onb-1", checkpoint: "START" });
    const skip = await post({
      eventId: "c-2",
      type: "onboarding",
      payload: {},
      stateDelta: { runId: "onb-1", checkpoint: "DOCUMENTS_SIGNED" },
    });
    expect(skip).toMatchObject({ status: 409, json: { error: "invalid_transition" } });
    const repeat = await post({
      eventId: "c-3",
      type: "onboarding",
      payload: {},
      stateDelta: { runId: "onb-1", checkpoint: "START" },
    });
    expect(repeat.json.error).toBe("invalid_transition");
    const late = await post({
      eventId: "c-4",
      type: "onboarding",
      payload: {},
      stateDelta: { runId: "onb-2", checkpoint: "WELCOME_SENT" },
    });
    expect(late.json.error).toBe("invalid_transition");
    expect(await counts()).toEqual({ inbox: 1, runs: 1 });
    const next = await post({
      eventId: "c-5",
      type: "onboarding",
      payload: {},
      stateDelta: { runId: "onb-1", checkpoint: "WELCOME_SENT", set: { sentAt: "monday" } },
    });
    expect(next.status).toBe(202);
    const run = await h.call("GET", "/v1/runs/onb-1", "mia");
    expect(run.json).toMatchObject({
      id: "onb-1",
      agent: "ops-agent",
      checkpoint: "WELCOME_SENT",
      vars: { employee: "kim", sentAt: "monday" },
    });
    const byAgent = await h.http.inject({
      method: "GET",
      url: "/v1/runs/onb-1",
      headers: { authorization: `Bearer ${AGENT_KEY}` },
    });
    expect(JSON.parse(byAgent.body).checkpoint).toBe("WELCOME_SENT");
    expect((await h.call("GET", "/v1/runs/onb-1", "gina")).status).toBe(404);
    expect((await h.call("GET", "/v1/runs/nope", "mia")).status).toBe(404);
  });

  it("refuses bad input, bad keys and members with a clear error and changes nothing", async () => {
    expect((await post({ eventId: "", type: "t", payload: 1 })).json).toMatchObject({
      error: "invalid_body",
      field: "eventId",
    });
    expect((await post({ eventId: "x", type: "t", payload: 1, extra: 1 })).status).toBe(400);
    expect((await post({ eventId: "x", type: "t", payload: 1, stateDelta: { runId: "r" } })).json.field).toBe(
      "stateDelta.checkpoint",
    );
    expect((await post({ eventId: "x", type: "t", payload: 1 }, "wrong-key-000000000")).status).toBe(401);
    expect((await post({ eventId: "x", type: "t", payload: 1 }, "demo-key-globex-agent-0002")).status).toBe(404);
    expect(
      (await h.call("POST", "/v1/agents/ops-agent/events", "mia", { eventId: "x", type: "t", payload: 1 })).status,
    ).toBe(403);
    const triggers = [
      { key: "a b", every: 200, destination: "http://x/y" },
      { key: "k", destination: "http://x/y" },
      { key: "k", every: 200, cron: "* * * * *", destination: "http://x/y" },
      { key: "k", every: "soon", destination: "http://x/y" },
      { key: "k", cron: "not a cron", destination: "http://x/y" },
      { key: "k", cron: "0 9 * * *", tz: "Mars/Olympus", destination: "http://x/y" },
      { key: "k", every: 200, destination: "ftp://x/y" },
      { key: "k", every: 200, destination: "http://x/y", misfire: "sometimes" },
      { key: "k", every: 200, destination: "http://x/y", contract: "maybe" },
    ];
    for (const body of triggers) {
      expect((await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", body)).status, JSON.stringify(body)).toBe(
        400,
      );
    }
    const member = await h.call("POST", "/v1/agents/ops-agent/triggers", "sam", {
      key: "k",
      every: 200,
      destination: "http://x/y",
    });
    expect(member.json.error).toBe("forbidden");
    expect(await counts()).toEqual({ inbox: 0, runs: 0 });
    expect(await h.ctx.store.db.trigger.count()).toBe(0);
    await allowTriggerDestinations(h.ctx.store.db, "acme:ops-agent", ["http://127.0.0.1:9/brief"]);
    const cron = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "daily",
      cron: "0 9 * * *",
      tz: "Europe/Berlin",
      destination: "http://127.0.0.1:9/brief",
    });
    expect(cron.json).toMatchObject({
      key: "daily",
      misfire: "coalesce",
      contract: "none",
      nextDueAt: expect.any(String),
    });
    expect((await h.call("GET", "/v1/agents/ops-agent/triggers", "mia")).json.items).toHaveLength(1);
    expect((await h.call("DELETE", "/v1/agents/ops-agent/triggers/daily", "alice")).status).toBe(200);
    expect((await h.call("DELETE", "/v1/agents/ops-agent/triggers/daily", "alice")).status).toBe(404);
  });
});
