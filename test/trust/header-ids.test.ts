import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acceptEvent } from "../../src/bot/app/held/receive-event";
import { eventDeliveryKey } from "../../src/policy/ids";
import { findAgent } from "../../src/store/directory/directory";
import { PROVIDERS } from "../support/databases";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

const AGENT_KEY = "demo-key-acme-ops-agent-0007";
/** Ids a header cannot carry: CR/LF (header injection), another control character, bidi, beyond Latin-1. */
const UNSENDABLE = ["evt-1\r\nX-Injected: 1", "evt\u0000nul", "evt\u202e10000", "evt-ü", "evt-😀", " evt", "evt\t"];

describe.each(PROVIDERS)("ids that go into headers, on %s", (provider) => {
  let h: HeldHarness;
  beforeEach(async () => {
    h = await createHeldHarness(provider);
  });
  afterEach(() => h.close());

  const post = async (body: unknown) => {
    const response = await h.http.inject({
      method: "POST",
      url: "/v1/agents/ops-agent/events",
      headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
      payload: JSON.stringify(body),
    });
    return { status: response.statusCode, json: JSON.parse(response.body) };
  };
  const events = () => h.receiver.calls.filter((c) => c.kind === "event");

  it("refuses an event id with CR/LF, control or non-ASCII characters with a 400 naming the field; a later event is delivered at once", async () => {
    for (const eventId of UNSENDABLE) {
      const answer = await post({ eventId, type: "signature", payload: {} });
      expect(answer.status, JSON.stringify(eventId)).toBe(400);
      expect(answer.json).toMatchObject({ error: "invalid_body", field: "eventId" });
      // NUL has its own, earlier rule (json-body.ts); every other one is this rule's.
      expect(answer.json.message).toMatch(eventId.includes("\u0000") ? /^eventId: / : /^eventId: printable ASCII only/);
    }
    const bad = await post({
      eventId: "ok",
      type: "t",
      payload: {},
      stateDelta: { runId: "r\n1", checkpoint: "START" },
    });
    expect(bad).toMatchObject({ status: 400, json: { field: "stateDelta.runId" } });
    expect(await h.ctx.store.db.inboxEvent.count()).toBe(0);
    expect(await h.ctx.store.db.outboxItem.count()).toBe(0);
    // Printable ASCII, spaces inside included, is taken.
    expect((await post({ eventId: "vendor reply #7 (ok)", type: "t", payload: {} })).status).toBe(202);
    await h.until(events, (calls) => calls.length === 1);
    expect(events()[0]!.key).toBe(eventDeliveryKey("acme:ops-agent", "vendor reply #7 (ok)"));
  });

  it("settles a stored event whose key no header can carry as NEEDS_REVIEW at its first attempt; the lane goes on, and it reconciles", async () => {
    // Stored before the door checked ids: straight through the use case, as an old row would be.
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    const stored = "legacy\r\nid";
    expect((await acceptEvent(h.ctx, agent, { eventId: stored, type: "old", payload: {} })).kind).toBe("accepted");
    expect((await post({ eventId: "after-it", type: "new", payload: {} })).status).toBe(202);
    const key = eventDeliveryKey(agent.id, stored);
    await h.until(events, (calls) => calls.length === 1);
    expect(events().map((c) => c.key)).toEqual([eventDeliveryKey(agent.id, "after-it")]);
    const item = await h.until(
      () => h.ctx.store.db.outboxItem.findUnique({ where: { id: key } }),
      (row) => row?.state === "NEEDS_REVIEW",
    );
    expect(item!.attempts).toBe(1);
    expect(item!.lastResult).toMatch(/^not sent: its key cannot be sent as an Idempotency-Key \(printable ASCII only/);
    const reconciled = await h.call("POST", `/v1/outbox/${encodeURIComponent(key)}/reconcile`, "alice", {
      resolution: "abandon",
      note: "an event id from before the check; the vendor resent it",
    });
    expect(reconciled.status).toBe(200);
    expect(reconciled.json.state).toBe("ABANDONED");
  });
});
