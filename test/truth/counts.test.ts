import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import type { Card, ChatTransport, Reply } from "../../src/bot/surfaces/chat/types";
import { runRelease } from "../../src/queue/held/run-release";
import { planDelivery } from "../../src/store/outbox/plan";
import { AGENT_KEY } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHarness, type Harness } from "../support/harness";

const via: ChatTransport = { platform: "telegram", checkCredentials: async () => ({ ok: true, detail: "test" }) };
const ALICE = { platform: "telegram" as const, userId: "7000002" };
const AGENT = "acme:ops-agent";

describe.each(PROVIDERS)("counts by policy on %s", (provider) => {
  let h: Harness;
  afterEach(() => h.close());

  /** A paused agent holding 3 coalesce, 2 all and 2 skip occurrences, 2 inbound events and 1 approved action. */
  async function heldWork() {
    h = await createHarness(provider);
    expect((await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" })).status).toBe(200);
    const db = h.ctx.store.db;
    await allowTriggerDestinations(db, AGENT, ["http://127.0.0.1:9/tick"]);
    for (const [key, misfire, count] of [
      ["co", "coalesce", 3],
      ["every", "all", 2],
      ["sk", "skip", 2],
    ] as const) {
      const made = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
        key,
        every: "1h",
        misfire,
        destination: "http://127.0.0.1:9/tick",
      });
      expect(made.status).toBe(201);
      for (let i = 0; i < count; i++) {
        const dueAt = new Date(Date.UTC(2026, 10, 30, i));
        await db.occurrence.create({
          data: {
            id: `${AGENT}:${key}:${dueAt.toISOString()}`,
            triggerId: `${AGENT}:${key}`,
            tenantId: "acme",
            agentId: AGENT,
            dueAt,
            state: "HELD",
          },
        });
      }
    }
    for (const eventId of ["e-1", "e-2"]) {
      const event = await h.http.inject({
        method: "POST",
        url: "/v1/agents/ops-agent/events",
        headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
        payload: JSON.stringify({ eventId, type: "vendor.reply", payload: {} }),
      });
      expect(event.statusCode).toBe(202);
    }
    await planDelivery(
      h.ctx.store,
      {
        id: "run-1:1:send",
        kind: "action",
        tenantId: "acme",
        agentId: AGENT,
        destination: "http://127.0.0.1:9/a",
        contract: "none",
        payload: {},
      },
      new Date(),
    );
  }

  it("forecasts a resume by the misfire policies, and the card and the release log count every kind", async () => {
    await heldWork();
    const dry = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(dry.json.held).toMatchObject({ occurrences: 7, inboundEvents: 2, outboxActions: 1 });
    expect(dry.json.held.release).toEqual({ send: 3, coalesced: 1, skip: 2 });

    const router = createChatRouter({ ctx: h.ctx });
    const reply = (await router.command(
      { name: "resume", text: "", actor: ALICE, channelId: "7000002" },
      via,
    )) as Reply;
    expect(reply.kind).toBe("card");
    const card = (reply as { card: Card }).card;
    // Everything it sends, not the occurrences alone: 3 trigger deliveries, 2 events and 1 action.
    expect(card.lines).toContain(
      "On resume: will send 6: 3 trigger deliveries (1 coalesced), 2 inbound events, 1 outbound action; skip 2",
    );
    const confirm = card.buttons.find((b) => b.action === "resume.confirm")!.token;
    const click = (interactionId: string) =>
      router.interaction(
        {
          interactionId,
          action: "resume.confirm",
          token: confirm,
          actor: ALICE,
          card: { channelId: "7000002", messageId: "9" },
        },
        via,
      );
    const first = await click("cb-1");
    expect(first.card?.footer).toMatch(
      /^Resumed by alice at .* UTC; released 7 trigger occurrences, 2 inbound events, 1 outbound action\.$/,
    );
    const again = await click("cb-2"); // a re-sent Confirm: nothing fires twice, and the card keeps who resumed
    expect(again.note).toBe("ops-agent is already running.");
    expect(again.card?.footer).toBe(first.card?.footer);

    const lines: Array<Record<string, unknown>> = [];
    const log = pino(
      { level: "info" },
      new Writable({
        write(chunk, _e, done) {
          for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      }),
    );
    const release = await h.ctx.store.db.release.findFirstOrThrow({ where: { agentId: AGENT } });
    await runRelease(
      { store: h.ctx.store, log, now: () => new Date(), instanceId: "test", planned: () => {} },
      release.id,
    );
    expect(lines.find((l) => l.msg === "release finished")).toMatchObject({
      releaseId: release.id,
      occurrencesReleased: 5,
      occurrencesSkipped: 2,
      events: 2,
      actions: 1,
    });
  });

  it("keeps who resumed on a card whose Confirm lost the race to a resume from elsewhere", async () => {
    await heldWork();
    const router = createChatRouter({ ctx: h.ctx });
    const reply = (await router.command({ name: "resume", text: "", actor: ALICE, channelId: "7000002" }, via)) as {
      card: Card;
    };
    const confirm = reply.card.buttons.find((b) => b.action === "resume.confirm")!.token;
    expect((await h.call("POST", "/v1/agents/ops-agent/resume", "ada", {})).status).toBe(200);
    const late = await router.interaction(
      {
        interactionId: "cb-3",
        action: "resume.confirm",
        token: confirm,
        actor: ALICE,
        card: { channelId: "7000002", messageId: "9" },
      },
      via,
    );
    // Bound to its preflight (issue 13), the card resumed nothing; it still says who did.
    expect(late.card?.footer).toMatch(/^Out of date at .* UTC: nothing was resumed\. Resumed by ada at .* UTC\.$/);
  });
});
