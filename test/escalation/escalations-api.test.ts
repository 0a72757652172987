import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import { recordStep, resolveEscalation, startEscalation } from "../../src/store/escalations/ledger";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import {
  BOB,
  createEscalationHarness,
  type EscalationHarness,
  endWait,
  MIN,
  type MonitorProcess,
  makeWait,
  pingsTo,
  RUN,
  TEST_ESCALATION,
  TITLE,
} from "../support/escalation-harness";
import { KEYS } from "../support/harness";
import { capturedLog } from "../support/log-capture";

describe.each(PROVIDERS)("the escalation API on %s", (provider) => {
  const T0 = comingDay(8);
  let h: EscalationHarness;
  let p: MonitorProcess;
  let http: FastifyInstance;
  let id: string;

  const call = async (method: "GET" | "POST", url: string, as?: keyof typeof KEYS, body?: unknown) => {
    const response = await http.inject({
      method,
      url,
      headers: {
        ...(as ? { authorization: `Bearer ${KEYS[as]}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, json: response.body ? JSON.parse(response.body) : null };
  };

  beforeEach(async () => {
    h = await createEscalationHarness(provider, T0);
    await makeWait(h.db, "approval", T0);
    p = await h.start();
    h.clock.set(new Date(T0.getTime() + 11 * MIN));
    await p.monitor.tick();
    id = (await h.db.store.db.escalation.findFirstOrThrow()).id;
    http = buildHttpServer({ ctx: p.ctx, health: async () => ({ ok: true, checks: {} }) });
    await http.ready();
  });
  afterEach(async () => {
    await http.close();
    await h.close();
  });

  it("lists the caller's escalations: targets, the principal and admins see it; others and other tenants do not", async () => {
    const bob = await call("GET", "/v1/escalations", "bob");
    expect(bob.status).toBe(200);
    expect(bob.json).toEqual({
      items: [
        expect.objectContaining({
          id,
          kind: "approval",
          subject: "r-esc-1",
          level: 1,
          notified: ["bob"],
          sentAt: h.clock.now.toISOString(),
          acknowledgedBy: null,
          acknowledgedAt: null,
          resolvedAt: null,
        }),
      ],
      nextCursor: null,
    });
    for (const user of ["ada", "alice"] as const)
      expect((await call("GET", "/v1/escalations", user)).json.items).toHaveLength(1);
    for (const user of ["rita", "gina"] as const)
      expect((await call("GET", "/v1/escalations", user)).json.items).toEqual([]);
    expect((await call("GET", "/v1/escalations")).status).toBe(401);
  });

  it("lists each ping and where it was posted; a ping that reached no platform says so, in the API and the log", async () => {
    const bob = await call("GET", "/v1/escalations", "bob");
    expect(bob.json.items[0].pings).toEqual([
      {
        level: 1,
        repeat: 0,
        sentAt: h.clock.now.toISOString(),
        notified: ["bob"],
        postedTo: [
          { platform: "slack", channel: "dm-slack-U0BOB" },
          { platform: "telegram", channel: "dm-telegram-7000005" },
        ],
        note: null,
      },
    ]);
    // Another wait, pinged by a process with no chat platform.
    const { log, lines } = capturedLog();
    const offline = await h.start({ chat: false, log });
    await makeWait(h.db, "review", h.clock.now);
    h.clock.advance(11 * MIN);
    await offline.monitor.tick();
    const items = (await call("GET", "/v1/escalations", "bob")).json.items;
    const review = items.find((e: { kind: string }) => e.kind === "review");
    expect(review.pings).toEqual([
      expect.objectContaining({ level: 1, postedTo: [], note: "no chat platform: shown in the console only" }),
    ]);
    const line = lines.find((l) => l.escalation === review.id);
    expect(line).toMatchObject({
      level: 30, // pino's own level (info), not overwritten by the escalation's
      escalationLevel: 1,
      msg: "escalation ping: no chat platform: shown in the console only",
    });
  });

  it("acknowledges through the one handler; the state filter and paging follow", async () => {
    const acked = await call("POST", `/v1/escalations/${id}/ack`, "bob");
    expect(acked.status).toBe(200);
    expect(acked.json).toMatchObject({
      result: "acknowledged",
      escalation: { acknowledgedBy: "bob", state: "acknowledged" },
    });
    expect((await call("POST", `/v1/escalations/${id}/ack`, "ada", {})).json.result).toBe("already");
    expect((await call("GET", "/v1/escalations?state=acknowledged", "bob")).json.items).toHaveLength(1);
    expect((await call("GET", "/v1/escalations?state=open", "bob")).json.items).toEqual([]);
    const page = await call("GET", "/v1/escalations?limit=1", "ada");
    expect(page.json.nextCursor).toBeNull();
  });

  it("refuses bad input with a clear 4xx and changes nothing", async () => {
    const before = await h.db.store.db.escalation.findUniqueOrThrow({ where: { id } });
    const cases: Array<[string, string, keyof typeof KEYS, unknown, number]> = [
      ["POST", "/v1/escalations/esc_unknown000/ack", "bob", undefined, 404],
      ["POST", `/v1/escalations/${id}/ack`, "gina", undefined, 404],
      ["POST", `/v1/escalations/${id}%00/ack`, "bob", undefined, 400],
      ["POST", "/v1/escalations/not-an-id/ack", "bob", undefined, 400],
      ["POST", `/v1/escalations/${id}/ack`, "bob", { note: "x" }, 400],
      ["GET", "/v1/escalations?state=closed", "bob", undefined, 400],
      ["GET", "/v1/escalations?state=open%00", "bob", undefined, 400],
      ["GET", "/v1/escalations?limit=99999999999999999999", "bob", undefined, 400],
      ["GET", "/v1/escalations?cursor=bm90LWEtY3Vyc29y", "bob", undefined, 400],
      ["GET", "/v1/escalations?what=1", "bob", undefined, 400],
    ];
    for (const [method, url, as, body, status] of cases) {
      const answer = await call(method as "GET" | "POST", url, as, body);
      expect([url, answer.status]).toEqual([url, status]);
      expect(answer.json.error).toBeTypeOf("string");
    }
    expect(await h.db.store.db.escalation.findUniqueOrThrow({ where: { id } })).toEqual(before);
    await endWait(h.db, "approval", h.clock.now);
    await p.monitor.tick();
    expect((await call("POST", `/v1/escalations/${id}/ack`, "bob")).status).toBe(409);
    expect((await call("GET", "/v1/escalations?state=resolved", "bob")).json.items[0].resolvedAt).toBe(
      h.clock.now.toISOString(),
    );
  });

  it("a stale or duplicate step does nothing: the fencing token and the ledger's unique key", async () => {
    const escalation = await h.db.store.db.escalation.findUniqueOrThrow({ where: { id } });
    const step = { level: 1, repeat: 0, dueAt: h.clock.now };
    expect(await recordStep(h.db.store, escalation, step, [], h.clock.now)).toBe("duplicate");
    expect(await resolveEscalation(h.db.store, escalation, "Resolved: test", h.clock.now)).toBe(true);
    expect(await resolveEscalation(h.db.store, escalation, "Resolved: again", h.clock.now)).toBe(false);
    const policy = JSON.parse(escalation.policy);
    const fresh = await startEscalation(h.db.store, { ...escalation, kind: "approval", policy }, h.clock.now);
    expect(fresh).not.toBeNull();
    expect(await startEscalation(h.db.store, { ...escalation, kind: "approval", policy }, h.clock.now)).toBeNull();
    // The old escalation's job comes late: its token is no longer the item's active one.
    expect(await recordStep(h.db.store, escalation, { ...step, repeat: 1 }, [], h.clock.now)).toBe("stale_token");
    expect(await h.db.store.db.escalationStep.count({ where: { escalationId: id } })).toBe(1);
  });

  it("the policy is snapshotted at the start: a config change does not re-page or re-target", async () => {
    await h.configure({ ...TEST_ESCALATION, levels: [{ notify: ["admins"] }], approvalAfter: MIN });
    h.clock.set(new Date(T0.getTime() + 12 * MIN));
    await p.monitor.tick();
    expect(pingsTo(h.slack, BOB.slack, TITLE.approval)).toHaveLength(1);
    expect(h.slack.posts).toHaveLength(1);
    const row = await h.db.store.db.escalation.findUniqueOrThrow({ where: { id } });
    expect(JSON.parse(row.policy).levels[0].notify).toEqual(["acme:bob"]);
    expect(row.subject).toBe(RUN);
  });
});
