import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packetDigest } from "../../src/policy/digest";
import { asAgent, createWaitingRun, declareDestinations, GLOBEX_AGENT_KEY } from "../support/approvals";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";
const NOW = comingDay(9);
const DEADLINE = comingDay(12).toISOString();

describe.each(PROVIDERS)("the runs API on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider, () => NOW);
    await declareDestinations(h, { [DESTINATION]: "key-retained 24h" });
  });
  afterEach(async () => h.close());

  const newRun = (extra: Record<string, unknown> = {}) => ({
    id: "run-1",
    agent: "ops-agent",
    operation: "send-invoice",
    destination: DESTINATION,
    packet: { b: [1, 2], a: "x" },
    reviewers: ["rita"],
    deadline: DEADLINE,
    escalateAfter: "2h",
    ...extra,
  });
  const snapshot = async () => ({
    runs: await h.ctx.store.db.run.findMany({ orderBy: { id: "asc" } }),
    packets: await h.ctx.store.db.packetVersion.count(),
    events: await h.ctx.store.db.decisionEvent.count(),
    outbox: await h.ctx.store.db.outboxItem.count(),
  });

  it("creates a run waiting at version 1 with the canonical digest, and shows it", async () => {
    const created = await asAgent(h, "POST", "/v1/runs", newRun());
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      kind: "approval",
      id: "run-1",
      agent: "ops-agent",
      operation: "send-invoice",
      destination: DESTINATION,
      state: "waiting",
      version: 1,
      digest: packetDigest({ a: "x", b: [1, 2] }),
      deadline: DEADLINE,
      reviewers: ["rita"],
      vars: {},
      updatedAt: expect.any(String),
    });
    // Its reviewer (rita) sees the packet she decides on; another member (mia) sees its digest only.
    const packet = { a: "x", b: [1, 2] };
    expect((await asAgent(h, "GET", "/v1/runs/run-1", undefined, "demo-key-acme-rita-0004")).json).toEqual({
      ...created.json,
      packet,
    });
    expect((await asAgent(h, "GET", "/v1/runs/run-1", undefined, "demo-key-acme-mia-0006")).json).toEqual(created.json);
    expect(await asAgent(h, "GET", "/v1/runs/run-1", undefined, GLOBEX_AGENT_KEY)).toMatchObject({ status: 404 });
    expect(await h.call("GET", "/v1/runs/run-1", "gina")).toMatchObject({ status: 404 });
  });

  it("answers a retried create with the same run, and a different one under the same id with 409", async () => {
    const first = await asAgent(h, "POST", "/v1/runs", newRun());
    const again = await asAgent(h, "POST", "/v1/runs", newRun({ packet: { a: "x", b: [1, 2] } }));
    expect(again).toEqual({ status: 200, json: first.json });
    const other = await asAgent(h, "POST", "/v1/runs", newRun({ packet: { a: "y" } }));
    expect(other).toMatchObject({ status: 409, json: { error: "conflict" } });
    expect(await h.ctx.store.db.packetVersion.count()).toBe(1);
  });

  it("makes a changed packet a new version; decisions for the old one are stale", async () => {
    const v1 = await createWaitingRun(h, { id: "run-2", destination: DESTINATION, deadline: new Date(DEADLINE) });
    const same = await asAgent(h, "POST", "/v1/runs/run-2/packet", {
      packet: JSON.parse('{ "evidence": ["quote.pdf"], "invoice": { "to": "acme-customer", "amount": 100 } }'),
    });
    expect(same.json).toMatchObject({ outcome: "unchanged", version: 1, digest: v1.digest });
    const v2 = await asAgent(h, "POST", "/v1/runs/run-2/packet", { packet: { invoice: { amount: 5 } }, version: 1 });
    expect(v2.json).toMatchObject({ outcome: "saved", version: 2, state: "waiting" });
    expect(v2.json.digest).not.toBe(v1.digest);
    const old = { eventId: "e1", action: "approve", version: 1, digest: v1.digest };
    expect((await h.call("POST", "/v1/runs/run-2/decisions", "rita", old)).json.result).toBe("stale");
    const behind = await asAgent(h, "POST", "/v1/runs/run-2/packet", { packet: { x: 1 }, version: 1 });
    expect(behind).toMatchObject({ status: 409, json: { error: "stale" } });
    const current = { eventId: "e2", action: "approve", version: 2, digest: v2.json.digest };
    expect((await h.call("POST", "/v1/runs/run-2/decisions", "rita", current)).json.result).toBe("approved");
    const late = await asAgent(h, "POST", "/v1/runs/run-2/packet", { packet: { x: 2 } });
    expect(late).toMatchObject({ status: 409, json: { error: "invalid_state" } });
    expect(await h.ctx.store.db.packetVersion.count({ where: { runId: "acme:run-2" } })).toBe(2);
  });

  it("refuses a reviewer of another tenant with 404, and nothing changes", async () => {
    const run = await createWaitingRun(h, { id: "run-3", destination: DESTINATION, deadline: new Date(DEADLINE) });
    const before = await snapshot();
    const answer = await h.call("POST", "/v1/runs/run-3/decisions", "gina", {
      eventId: "x",
      action: "approve",
      version: run.version,
      digest: run.digest,
    });
    expect(answer).toMatchObject({ status: 404, json: { error: "not_found" } });
    expect(await snapshot()).toEqual(before);
  });

  describe("bad input changes nothing", () => {
    const big = { blob: "x".repeat(256 * 1024) };
    it.each<[string, () => Promise<{ status: number; json: any }>, number, string]>([
      ["malformed JSON", () => asAgent(h, "POST", "/v1/runs", '{"id": "r",'), 400, "invalid_json"],
      [
        "a packet over 256 KiB",
        () => asAgent(h, "POST", "/v1/runs", newRun({ packet: big })),
        413,
        "payload_too_large",
      ],
      [
        "a body far over the route limit",
        () => asAgent(h, "POST", "/v1/runs", newRun({ packet: { blob: "x".repeat(300_000) } })),
        413,
        "payload_too_large",
      ],
      [
        "an unknown agent key",
        () => asAgent(h, "POST", "/v1/runs", newRun(), "nope-nope-nope-nope"),
        401,
        "unauthorized",
      ],
      [
        "a user key where an agent key is needed",
        () => h.call("POST", "/v1/runs", "alice", newRun()),
        401,
        "unauthorized",
      ],
      ["another agent's name", () => asAgent(h, "POST", "/v1/runs", newRun(), GLOBEX_AGENT_KEY), 403, "forbidden"],
      [
        "an undeclared destination",
        () => asAgent(h, "POST", "/v1/runs", newRun({ destination: "http://evil.example/x" })),
        400,
        "invalid_body",
      ],
      [
        "an unknown reviewer",
        () => asAgent(h, "POST", "/v1/runs", newRun({ reviewers: ["rita", "zed"] })),
        400,
        "invalid_body",
      ],
      [
        "another tenant's reviewer",
        () => asAgent(h, "POST", "/v1/runs", newRun({ reviewers: ["gina"] })),
        400,
        "invalid_body",
      ],
      [
        "a past deadline",
        () => asAgent(h, "POST", "/v1/runs", newRun({ deadline: "2026-01-01T00:00:00Z" })),
        400,
        "invalid_body",
      ],
      ["an unknown field", () => asAgent(h, "POST", "/v1/runs", newRun({ actor: "ada" })), 400, "invalid_body"],
      [
        "a decision with an unknown key",
        () =>
          h.http
            .inject({
              method: "POST",
              url: "/v1/runs/run-x/decisions",
              headers: { authorization: "Bearer zzzzzzzzzzzzzzzz" },
              payload: {},
            })
            .then((r) => ({ status: r.statusCode, json: r.json() })),
        401,
        "unauthorized",
      ],
      [
        "a decision naming its actor",
        () =>
          h.call("POST", "/v1/runs/run-x/decisions", "rita", {
            eventId: "e",
            action: "approve",
            version: 1,
            digest: "d",
            actor: "ada",
          }),
        400,
        "invalid_body",
      ],
      [
        "a decision for an unknown run",
        () =>
          h.call("POST", "/v1/runs/run-x/decisions", "rita", {
            eventId: "e",
            action: "approve",
            version: 1,
            digest: "d",
          }),
        404,
        "not_found",
      ],
    ])("%s", async (_name, send, status, error) => {
      const before = await snapshot();
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.json.error).toBe(error);
      expect(await snapshot()).toEqual(before);
    });

    it("accepts a packet just under 256 KiB", async () => {
      const created = await asAgent(h, "POST", "/v1/runs", newRun({ packet: { blob: "x".repeat(256 * 1024 - 20) } }));
      expect(created.status).toBe(201);
    });
  });
});
