import { afterEach, describe, expect, test } from "vitest";
import { pauseTenant } from "../../src/bot/app/control/tenant-control";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import type { ChatActor, ChatRouter, ChatTransport, Reply } from "../../src/bot/surfaces/chat/types";
import type { Provider } from "../../src/store/connection/client";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

// The router on its own, with a transport that stands in for an adapter (the adapters have contract tests).

const via: ChatTransport = { platform: "telegram", checkCredentials: async () => ({ ok: true, detail: "test" }) };
const TELEGRAM = { ada: "7000001", alice: "7000002", rita: "7000004", mia: "7000006" } as const;
const actor = (name: keyof typeof TELEGRAM): ChatActor => ({ platform: "telegram", userId: TELEGRAM[name] });
const text = (reply: Reply) => (reply.kind === "text" ? reply.text : JSON.stringify(reply.card));

let h: Harness;
afterEach(async () => h?.close());

async function setup(provider: Provider, now?: () => Date): Promise<ChatRouter> {
  h = await createHarness(provider, now);
  return createChatRouter({ ctx: h.ctx });
}
const command = (
  router: ChatRouter,
  name: "pause" | "resume" | "status" | "approvals",
  who: keyof typeof TELEGRAM,
  args = "",
) => router.command({ name, text: args, actor: actor(who), channelId: TELEGRAM[who] }, via);

describe.each(PROVIDERS)("chat router on %s", (provider) => {
  test("/status shows the hold, who set it, since when, the until and the tenant's pause", async () => {
    const router = await setup(provider, () => new Date("2026-11-30T12:00:00Z"));
    expect(text(await command(router, "status", "mia"))).toMatch(/^ops-agent is RUNNING\./);
    await command(router, "pause", "alice", "ops-agent release freeze 1d");
    const reply = await command(router, "status", "mia");
    expect(reply).toMatchObject({ kind: "text", ephemeral: true });
    const status = text(reply);
    expect(status).toContain(
      "ops-agent is PAUSED: a principal hold set by alice since 2026-11-30 12:00 UTC. Reason: release freeze.",
    );
    expect(status).toContain("Automatic resume at 2026-12-01 12:00 UTC.");
    expect(status).toContain("Held trigger occurrences: 0");

    const ada = (await h.ctx.store.db.user.findUnique({ where: { id: "acme:ada" } }))!;
    await pauseTenant(h.ctx, ada, "audit", null);
    await h.ctx.store.db.run.create({
      data: { id: "run-1", tenantId: "acme", agentId: "acme:ops-agent", state: "waiting", operation: "send-invoice" },
    });
    const later = text(await command(router, "status", "mia"));
    expect(later).toContain(
      "ops-agent is PAUSED: paused by the tenant-wide hold, set by ada since 2026-11-30 12:00 UTC. Reason: audit.",
    );
    expect(later).toContain("Its own record is PAUSED too: a principal hold set by alice");
    expect(later).toContain("Oldest pending approval: send-invoice since");
  });

  test("/approvals lists the runs waiting for the caller only", async () => {
    const router = await setup(provider);
    const db = h.ctx.store.db;
    const base = { tenantId: "acme", agentId: "acme:ops-agent", operation: "deploy" };
    await db.run.create({ data: { ...base, id: "r1", state: "waiting", reviewers: JSON.stringify(["acme:rita"]) } });
    await db.run.create({ data: { ...base, id: "r2", state: "approved", reviewers: JSON.stringify(["acme:rita"]) } });
    await db.run.create({ data: { ...base, id: "r3", state: "waiting", reviewers: JSON.stringify(["acme:sam"]) } });
    const rita = text(await command(router, "approvals", "rita"));
    expect(rita).toContain("1 waiting for your decision");
    expect(rita).toContain("deploy (r1, v1) for ops-agent");
    expect(text(await command(router, "approvals", "mia"))).toBe("Nothing waits for your approval.");
  });

  test("a bad until is refused in words and nothing changes", async () => {
    const router = await setup(provider);
    expect(text(await command(router, "pause", "alice", "vacation until someday"))).toContain("(invalid_until)");
    expect(text(await command(router, "resume", "alice"))).toBe(
      "ops-agent is not paused, so there is nothing to resume. (not_paused)",
    );
    expect(await h.ctx.store.db.control.findUnique({ where: { scope: "agent:acme:ops-agent" } })).toMatchObject({
      state: "RUNNING",
    });
  });

  test("PostgreSQL: two Confirms racing resume exactly once", async () => {
    const router = await setup("postgresql");
    await command(router, "pause", "alice", "vacation");
    const card = await command(router, "resume", "alice");
    if (card.kind !== "card") throw new Error(`expected a card, got ${text(card)}`);
    const confirm = card.card.buttons.find((b) => b.action === "resume.confirm")!;
    const click = (id: string, who: "alice" | "ada") =>
      router.interaction(
        {
          interactionId: id,
          action: "resume.confirm",
          token: confirm.token,
          actor: actor(who),
          card: { channelId: "c", messageId: "m" },
        },
        via,
      );
    const notes = (await Promise.all([click("i1", "alice"), click("i2", "ada")])).map((r) => r.note).sort();
    // The loser finds the control record moved on: its card is stale, and nothing is left to resume.
    expect(notes).toEqual([
      "ops-agent is not paused, so there is nothing to resume. (not_paused)",
      "ops-agent resumed.",
    ]);
    const resumed = await h.ctx.store.db.controlAudit.count({ where: { action: "resume", outcome: "resumed" } });
    expect(resumed).toBe(1);
  });

  test("a button of another tenant, or a made-up one, is refused", async () => {
    const router = await setup(provider);
    await command(router, "pause", "alice", "vacation");
    const card = await command(router, "resume", "alice");
    if (card.kind !== "card") throw new Error("expected a card");
    const token = card.card.buttons[0]!.token;
    const gina: ChatActor = { platform: "telegram", userId: "7000101" };
    const ref = { channelId: "c", messageId: "m" };
    const foreign = await router.interaction(
      { interactionId: "x", action: "resume.confirm", token, actor: gina, card: ref },
      via,
    );
    expect(foreign.note).toContain("(unknown_button)");
    const madeUp = await router.interaction(
      { interactionId: "y", action: "resume.confirm", token: "AAAAAAAAAAAAAAAA", actor: actor("ada"), card: ref },
      via,
    );
    expect(madeUp.note).toContain("(unknown_button)");
    expect(await h.ctx.store.db.control.findUnique({ where: { scope: "agent:acme:ops-agent" } })).toMatchObject({
      state: "PAUSED",
    });
  });
});

describe.each(PROVIDERS)("POST /v1/agents/:agent/resume with dryRun on %s", (provider) => {
  test("shows the preflight to the principal, refuses a member, and changes nothing", async () => {
    h = await createHarness(provider);
    await h.call("POST", "/v1/agents/ops-agent/pause", "mia", { reason: "vacation" });
    const dry = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.json).toMatchObject({
      dryRun: true,
      allowed: true,
      control: { state: "PAUSED" },
      requestedBy: { user: "alice", role: "principal" },
      held: { occurrences: 0, occurrencesByTrigger: {}, inboundEvents: 0, outboxActions: 0, needsReview: 0 },
    });
    const refused = await h.call("POST", "/v1/agents/ops-agent/resume", "mia", { dryRun: true });
    expect(refused).toMatchObject({ status: 200, json: { allowed: false, refusal: "forbidden" } });
    expect((await h.call("GET", "/v1/agents/ops-agent/control", "mia")).json).toMatchObject({ state: "PAUSED" });
  });
});
