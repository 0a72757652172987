import { afterEach, describe, expect, it } from "vitest";
import { expireRun } from "../../src/bot/app/approvals/expire-run";
import { runKey } from "../../src/policy/ids";
import { AGENT_KEY, asAgent, createWaitingRun, declareDestinations } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";
const T0 = new Date("2026-12-01T09:00:00Z");

describe.each(PROVIDERS)("answers that say what happened on %s", (provider) => {
  let h: Harness;
  let clock = T0;
  afterEach(() => h.close());
  const setup = async () => {
    clock = T0;
    h = await createHarness(provider, () => clock);
    await declareDestinations(h, { [DESTINATION]: "key-retained 24h" });
  };
  const decide = (id: string, body: Record<string, unknown>) =>
    h.call("POST", `/v1/runs/${id}/decisions`, "rita", body);

  it("answers expired to a decision on an expired run, and stale with its reason and the current version", async () => {
    await setup();
    const deadline = new Date(T0.getTime() + 3_600_000);
    const run = await createWaitingRun(h, { id: "r-exp", destination: DESTINATION, deadline });
    clock = new Date(deadline.getTime() + 1);
    // the scheduler's expiry job carries the stored (tenant-scoped) key
    expect(await expireRun(h.ctx, runKey("acme", "r-exp"))).toBe("expired");
    const late = await decide("r-exp", { eventId: "e-1", action: "approve", version: run.version, digest: run.digest });
    expect(late.status).toBe(409);
    expect(late.json.result).toBe("expired");

    clock = T0;
    const v2 = await createWaitingRun(h, { id: "r-stale", destination: DESTINATION, deadline, versions: 2 });
    const oldVersion = await decide("r-stale", { eventId: "e-2", action: "approve", version: 1, digest: v2.digest });
    expect(oldVersion).toMatchObject({ status: 409, json: { result: "stale", reason: "version", currentVersion: 2 } });
    const otherDigest = await decide("r-stale", { eventId: "e-3", action: "approve", version: 2, digest: "sha256:0" });
    expect(otherDigest).toMatchObject({ status: 409, json: { result: "stale", reason: "digest", currentVersion: 2 } });
    const stale = await h.ctx.store.db.run.findUniqueOrThrow({ where: { id: runKey("acme", "r-stale") } });
    expect(stale.state).toBe("waiting");
  });

  it("takes the same until forms in the API as in chat", async () => {
    await setup();
    const twoHours = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "deploy", until: "2h" });
    expect(twoHours.status).toBe(200);
    expect(twoHours.json.until).toBe("2026-12-01T11:00:00.000Z");
    await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {});
    const day = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "x", until: "2026-12-14" });
    expect(day.json.until).toBe("2026-12-14T00:00:00.000Z");
    await h.call("POST", "/v1/agents/ops-agent/resume", "alice", {});
    const bad = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "x", until: "soonish" });
    expect(bad).toMatchObject({ status: 400, json: { error: "invalid_body", field: "until" } });
    const past = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "x", until: "2026-11-30" });
    expect(past).toMatchObject({ status: 400, json: { error: "invalid_body", field: "until" } });
    const tenant = await h.call("POST", "/v1/tenant/pause", "ada", { reason: "audit", until: "1d12h" });
    expect(tenant.json.until).toBe("2026-12-02T21:00:00.000Z");
  });

  it("shows checkpoint-only runs and approval runs each in a shape of its own, and only the agent's checkpoints", async () => {
    await setup();
    const event = await h.http.inject({
      method: "POST",
      url: "/v1/agents/ops-agent/events",
      headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
      payload: JSON.stringify({
        eventId: "c-1",
        type: "onboarding",
        payload: {},
        stateDelta: { runId: "onb-1", checkpoint: "START" },
      }),
    });
    expect(event.statusCode).toBe(202);
    const onboarding = await h.call("GET", "/v1/runs/onb-1", "mia");
    expect(onboarding.json).toEqual({
      kind: "checkpoint",
      id: "onb-1",
      agent: "ops-agent",
      state: "active",
      checkpoint: "START",
      vars: {},
      updatedAt: expect.any(String),
    });
    const decision = await decide("onb-1", { eventId: "e-9", action: "approve", version: 1, digest: "sha256:0" });
    expect(decision.status).toBe(404); // nothing to decide: not an approval run

    const base = {
      agent: "ops-agent",
      operation: "send-invoice",
      destination: DESTINATION,
      packet: { a: 1 },
      reviewers: ["rita"],
      deadline: "2026-12-01T12:00:00Z",
    };
    const plain = await asAgent(h, "POST", "/v1/runs", { ...base, id: "r-1" });
    expect(plain.status).toBe(201);
    expect(plain.json).toMatchObject({
      kind: "approval",
      operation: "send-invoice",
      digest: expect.stringMatching(/^sha256:/),
    });
    expect(plain.json).not.toHaveProperty("checkpoint"); // no made-up "awaiting-approval"
    const named = await asAgent(h, "POST", "/v1/runs", { ...base, id: "r-2", checkpoint: "DOCUMENTS_SIGNED" });
    expect(named.json.checkpoint).toBe("DOCUMENTS_SIGNED");
    const unknown = await asAgent(h, "POST", "/v1/runs", { ...base, id: "r-3", checkpoint: "awaiting-approval" });
    expect(unknown).toMatchObject({ status: 400, json: { error: "invalid_body", field: "checkpoint" } });
    expect(await h.ctx.store.db.run.count({ where: { id: runKey("acme", "r-3") } })).toBe(0);
  });
});
