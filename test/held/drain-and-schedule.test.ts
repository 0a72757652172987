import { afterEach, describe, expect, it } from "vitest";
import { planDelivery } from "../../src/store/outbox/plan";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

const AGENT = "acme:ops-agent";

describe.each(PROVIDERS)("pause as a suspension, automatic resume and tenant-wide holds (%s)", (provider) => {
  let h: HeldHarness;
  afterEach(() => h.close());

  const planAction = (id: string) =>
    planDelivery(
      h.ctx.store,
      {
        id,
        kind: "action",
        tenantId: "acme",
        agentId: AGENT,
        destination: `${h.receiver.url}/effects`,
        contract: "key-retained 24h",
        payload: { id },
      },
      new Date(),
    ).then(() => h.runtime.delivery.nudge());
  const control = async () => (await h.call("GET", "/v1/agents/ops-agent/control", "mia")).json;

  it("lets a delivery in flight finish: the state reads DRAINING until it is acknowledged, then PAUSED", async () => {
    h = await createHeldHarness(provider);
    h.receiver.behave = () => ({ kind: "slow", ms: 1200 });
    await planAction("run-1:1:send");
    await h.receiver.waitForCalls(1);
    const paused = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    expect(paused.json).toMatchObject({ state: "DRAINING", outcome: "paused" });
    await planAction("run-2:1:send"); // planned during the drain: held, not started
    const done = await h.until(control, (c) => c.state === "PAUSED");
    expect(done.state).toBe("PAUSED");
    const item = await h.ctx.store.db.outboxItem.findUnique({ where: { id: "run-1:1:send" } });
    expect(item?.state).toBe("ACKNOWLEDGED");
    expect(h.receiver.calls.map((c) => c.key)).toEqual(["run-1:1:send"]);
    const preflight = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(preflight.json.held.outboxActions).toBe(1);
  });

  it("completes the pause at the drain deadline and moves the unfinished delivery to NEEDS_REVIEW", async () => {
    h = await createHeldHarness(provider, { drainTimeoutMs: 400 });
    h.receiver.behave = () => ({ kind: "slow", ms: 4000 });
    await planAction("run-3:1:send");
    await h.receiver.waitForCalls(1);
    const paused = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "incident" });
    expect(paused.json.state).toBe("DRAINING");
    const started = Date.now();
    await h.until(control, (c) => c.state === "PAUSED", 5000);
    expect(Date.now() - started).toBeLessThan(2500);
    const item = await h.ctx.store.db.outboxItem.findUnique({ where: { id: "run-3:1:send" } });
    expect(item?.state).toBe("NEEDS_REVIEW");
    expect(item?.lastResult).toMatch(/drain deadline/);
    const preflight = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(preflight.json.held.needsReview).toBe(1);
  });

  it("resumes by itself at the pause's until, as the trusted scheduler, and releases what was held", async () => {
    h = await createHeldHarness(provider);
    const until = new Date(Date.now() + 1200).toISOString();
    const paused = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation", until });
    expect(paused.json).toMatchObject({ state: "PAUSED", until });
    await allowTriggerDestinations(h.ctx.store.db, AGENT, [`${h.receiver.url}/tick`]);
    await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "tick",
      every: 200,
      destination: `${h.receiver.url}/tick`,
      misfire: "coalesce",
    });
    await h.until(
      () => h.ctx.store.db.occurrence.count({ where: { state: "HELD" } }),
      (n) => n >= 2,
    );
    await h.until(control, (c) => c.state === "RUNNING", 5000);
    const release = await h.until(
      () => h.ctx.store.db.release.findFirst({ where: { agentId: AGENT, requestedBy: "scheduler" } }),
      (r) => r?.state === "DONE",
    );
    const audit = await h.ctx.store.db.controlAudit.findFirst({ where: { action: "resume" } });
    expect(audit).toMatchObject({ actorId: null, outcome: "resumed" });
    await h.until(
      () => h.receiver.calls.filter((c) => c.key.includes(`:release:${release!.id}`)).length,
      (n) => n === 1,
    );
  });

  it("holds every agent of a tenant under a tenant-wide pause and releases on the tenant's resume", async () => {
    h = await createHeldHarness(provider);
    await allowTriggerDestinations(h.ctx.store.db, AGENT, [`${h.receiver.url}/tick`]);
    await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "tick",
      every: 200,
      destination: `${h.receiver.url}/tick`,
      misfire: "all",
    });
    await h.until(
      () => h.receiver.calls.length,
      (n) => n >= 1,
    );
    // A tick delivery may be in flight at that moment: the pause then drains first.
    const paused = await h.call("POST", "/v1/tenant/pause", "ada", { reason: "audit" });
    expect(["PAUSED", "DRAINING"]).toContain(paused.json.state);
    await h.until(
      () => h.ctx.store.db.control.findUnique({ where: { scope: "tenant:acme" } }),
      (c) => c?.state === "PAUSED",
    );
    const before = h.receiver.calls.length;
    await h.until(
      () => h.ctx.store.db.occurrence.count({ where: { state: "HELD" } }),
      (n) => n >= 3,
    );
    expect(h.receiver.calls.length).toBeLessThanOrEqual(before + 1); // at most one already under way
    const event = await h.call("POST", "/v1/agents/ops-agent/events", "alice", {
      eventId: "e1",
      type: "t",
      payload: {},
    });
    expect(event.json.state).toBe("held");
    expect((await h.call("POST", "/v1/tenant/resume", "ada", {})).status).toBe(200);
    const release = await h.until(
      () => h.ctx.store.db.release.findFirst({ where: { tenantId: "acme", agentId: null } }),
      (r) => r?.state === "DONE",
    );
    const released = await h.ctx.store.db.occurrence.findMany({ where: { releaseId: release!.id } });
    expect(released.length).toBeGreaterThanOrEqual(3);
    await h.until(
      () => h.receiver.calls.filter((c) => released.some((o) => o.id === c.key)).length,
      (n) => n === released.length,
    );
    await h.until(
      () => h.receiver.calls.filter((c) => c.kind === "event").length,
      (n) => n === 1,
    );
  });
});
