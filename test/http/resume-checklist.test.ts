import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentId } from "../../src/policy/ids";
import { recordMissed } from "../../src/store/held/occurrences";
import { upsertTrigger } from "../../src/store/held/triggers";
import { comingDay } from "../support/clock";
import { type ConfigHarness, createConfigHarness } from "../support/config-harness";
import { PROVIDERS } from "../support/databases";
import { type EffectReceiver, startEffectReceiver } from "../support/effect-receiver";

const AGENT_KEY = "checklist-agent-key-0001";
const KEYS = { ada: "checklist-ada-key-0001", alice: "checklist-alice-key-01", mia: "checklist-mia-key-0001" };
const RESUME = "/v1/agents/bot/resume";
const SCOPE = "agent:acme:bot";

const configFor = (webhook: string | undefined) => ({
  tenants: {
    acme: {
      admins: ["ada"],
      users: { ada: { apiKey: KEYS.ada }, alice: { apiKey: KEYS.alice }, mia: { apiKey: KEYS.mia } },
      agents: {
        bot: {
          principal: "alice",
          ...(webhook ? { webhook } : {}),
          agentKey: AGENT_KEY,
          checkpoints: ["START", "DOCUMENTS_SIGNED", "DONE"],
        },
      },
    },
  },
});

describe.each(PROVIDERS)("the resume checklist through the API on %s", (provider) => {
  let receiver: EffectReceiver;
  let h: ConfigHarness;
  let now: Date;
  beforeAll(async () => {
    receiver = await startEffectReceiver();
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    now = comingDay(9);
    receiver.readiness.length = 0;
    receiver.answerReadiness = (asked) => ({ ready: true, checkpoint: asked.lastCheckpoint?.name ?? null });
    h = await createConfigHarness(provider, configFor(`${receiver.url}/agent`), () => now);
  });
  afterEach(() => h.close());

  const atCheckpoint = async (checkpoint: string, eventId: string) => {
    const body = { eventId, type: "onboarding", payload: {}, stateDelta: { runId: "onb-1", checkpoint } };
    expect((await h.call("POST", "/v1/agents/bot/events", AGENT_KEY, body)).status).toBe(202);
  };
  const pause = () => h.call("POST", "/v1/agents/bot/pause", KEYS.alice, { reason: "vacation" });
  const statuses = (checklist: Array<{ check: string; status: string }>) =>
    Object.fromEntries(checklist.map((c) => [c.check, c.status]));
  const state = async () => (await h.db.store.db.control.findUnique({ where: { scope: SCOPE } }))!.state;

  it("an answer at the recorded checkpoint: every check ok, in order, and the resume releases", async () => {
    await atCheckpoint("START", "e-1");
    await atCheckpoint("DOCUMENTS_SIGNED", "e-2");
    await pause();
    const dry = await h.call("POST", RESUME, KEYS.alice, { dryRun: true });
    expect(dry.json.checklist.map((c: { check: string }) => c.check)).toEqual([
      "checkpoint",
      "pending",
      "inbound",
      "credentials",
      "idempotency",
      "actor",
    ]);
    expect(new Set(dry.json.checklist.map((c: { status: string }) => c.status))).toEqual(new Set(["ok"]));
    expect(receiver.readiness).toEqual([
      {
        type: "holdfast.readiness",
        agent: "bot",
        lastCheckpoint: { name: "DOCUMENTS_SIGNED", at: expect.any(String), vars: {}, run: "onb-1" },
      },
    ]);
    const resumed = await h.call("POST", RESUME, KEYS.alice, {});
    expect(resumed.status).toBe(200);
    expect(statuses(resumed.json.checklist).checkpoint).toBe("ok");
    expect(await state()).toBe("RUNNING");
  });

  it("another checkpoint fails with both values; Confirm is refused, a member's override too, the principal's releases once", async () => {
    await atCheckpoint("START", "e-1");
    await pause();
    receiver.answerReadiness = () => ({ ready: true, checkpoint: "DOCUMENTS_SIGNED" });
    const dry = await h.call("POST", RESUME, KEYS.alice, { dryRun: true });
    expect(dry.json.checklist[0]).toMatchObject({
      check: "checkpoint",
      status: "fail",
      recorded: "START",
      reported: "DOCUMENTS_SIGNED",
    });
    expect(dry.json.checklist[0].detail).toContain('"START"');
    expect(dry.json.checklist[0].detail).toContain('"DOCUMENTS_SIGNED"');

    const refused = await h.call("POST", RESUME, KEYS.alice, {});
    expect(refused.status).toBe(409);
    expect(refused.json.error).toBe("checklist_failed");
    expect(statuses(refused.json.checklist).checkpoint).toBe("fail");
    expect(await state()).toBe("PAUSED");

    const member = await h.call("POST", RESUME, KEYS.mia, { override: { reason: "looks fine" } });
    expect(member).toMatchObject({ status: 403, json: { error: "forbidden" } });
    expect(await state()).toBe("PAUSED");
    expect(await h.db.store.db.release.count()).toBe(0);

    const anyway = await h.call("POST", RESUME, KEYS.alice, {
      override: { reason: "agent restarted, checked by hand" },
    });
    expect(anyway.status).toBe(200);
    expect(await state()).toBe("RUNNING");
    expect((await h.call("POST", RESUME, KEYS.alice, { override: { reason: "again" } })).status).toBe(409);
    expect(await h.db.store.db.release.count()).toBe(1);

    const audit = await h.db.store.db.controlAudit.findMany({
      where: { scope: SCOPE, action: "resume" },
      orderBy: { id: "asc" },
    });
    const failed = audit.find((a) => a.outcome === "checklist_failed")!;
    expect(failed.reason).toContain("checkpoint fail");
    const released = audit.find((a) => a.outcome === "resumed")!;
    expect(released.actorId).toBe("acme:alice");
    expect(released.reason).toContain("override: agent restarted, checked by hand");
    expect(released.reason).toContain("checkpoint fail");
  });

  it("an override needs a reason (400, nothing changes)", async () => {
    await pause();
    const res = await h.call("POST", RESUME, KEYS.alice, { override: { reason: " " } });
    expect(res).toMatchObject({ status: 400, json: { error: "invalid_body" } });
    expect(await state()).toBe("PAUSED");
  });

  it("ready: false fails; so does no answer within 5 s", async () => {
    await pause();
    receiver.answerReadiness = () => ({ ready: false, checkpoint: null });
    const notReady = await h.call("POST", RESUME, KEYS.alice, { dryRun: true });
    expect(notReady.json.checklist[0]).toMatchObject({ status: "fail" });
    expect(notReady.json.checklist[0].detail).toContain("not ready");
    receiver.answerReadiness = () => undefined;
    const silent = await h.call("POST", RESUME, KEYS.alice, { dryRun: true });
    expect(silent.json.checklist[0]).toMatchObject({ check: "checkpoint", status: "fail" });
    expect(silent.json.checklist[0].detail).toContain("the agent did not answer");
  }, 20_000);

  it("names each gap and each double in the held ledger", async () => {
    const db = h.db.store.db;
    const trigger = await upsertTrigger(
      db,
      {
        tenantId: "acme",
        agentId: agentId("acme", "bot"),
        key: "digest",
        everyMs: 60_000,
        cron: null,
        tz: null,
        payload: {},
        destination: `${receiver.url}/agent`,
        misfire: "all",
        contract: "none",
      },
      new Date(now.getTime() - 3_600_000),
    );
    await pause();
    const pausedAt = now;
    const due = [1, 2, 3, 4, 5].map((m) => new Date(pausedAt.getTime() + m * 60_000));
    await recordMissed(h.db.store, { trigger, missed: due, held: true, now: due[4]! });
    now = new Date(pausedAt.getTime() + 6 * 60_000);
    expect(statuses((await h.call("POST", RESUME, KEYS.alice, { dryRun: true })).json.checklist).pending).toBe("ok");

    const rows = await db.occurrence.findMany({ orderBy: { dueAt: "asc" } });
    await db.occurrence.delete({ where: { id: rows[2]!.id } });
    const { id, ...copy } = rows[3]!;
    await db.occurrence.create({ data: { ...copy, id: `${id}:again` } });
    const pending = (await h.call("POST", RESUME, KEYS.alice, { dryRun: true })).json.checklist[1];
    expect(pending.status).toBe("fail");
    expect(pending.detail).toContain(`due time ${due[2]!.toISOString()} is missing`);
    expect(pending.detail).toContain(`due time ${due[3]!.toISOString()} is held 2 times`);
    expect((await h.call("POST", RESUME, KEYS.alice, {})).status).toBe(409);
  });

  it("an event delivered during the pause fails the inbound check", async () => {
    await pause();
    const body = { eventId: "late-1", type: "vendor.reply", payload: {} };
    expect((await h.call("POST", "/v1/agents/bot/events", AGENT_KEY, body)).status).toBe(202);
    const ok = (await h.call("POST", RESUME, KEYS.alice, { dryRun: true })).json.checklist[2];
    expect(ok).toMatchObject({ check: "inbound", status: "ok" });
    await h.db.store.db.inboxEvent.updateMany({ where: { eventId: "late-1" }, data: { state: "DONE" } });
    const inbound = (await h.call("POST", RESUME, KEYS.alice, { dryRun: true })).json.checklist[2];
    expect(inbound).toMatchObject({ check: "inbound", status: "fail" });
    expect(inbound.detail).toContain("late-1");
  });

  it("counts the tokens the pause revoked", async () => {
    await h.call("POST", "/v1/tokens", AGENT_KEY, {});
    await h.call("POST", "/v1/tokens", AGENT_KEY, {});
    await pause();
    const credentials = (await h.call("POST", RESUME, KEYS.alice, { dryRun: true })).json.checklist[3];
    expect(credentials).toMatchObject({ check: "credentials", status: "ok" });
    expect(credentials.detail).toContain("2 token(s) revoked");
  });
});

describe.each(PROVIDERS)("an agent without a webhook on %s", (provider) => {
  it("is not checked (warn), and the resume releases", async () => {
    const h = await createConfigHarness(provider, configFor(undefined));
    try {
      await h.call("POST", "/v1/agents/bot/pause", KEYS.alice, { reason: "vacation" });
      const dry = await h.call("POST", RESUME, KEYS.alice, { dryRun: true });
      expect(dry.json.checklist[0]).toMatchObject({ check: "checkpoint", status: "warn" });
      expect(dry.json.checklist[0].detail).toContain("not checked");
      expect((await h.call("POST", RESUME, KEYS.alice, {})).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
