import { afterEach, describe, expect, test } from "vitest";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import type { Card, ChatRouter, ChatTransport } from "../../src/bot/surfaces/chat/types";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

// A resume Confirm is bound to the control record's version its preflight showed.

const via: ChatTransport = { platform: "telegram", checkCredentials: async () => ({ ok: true, detail: "test" }) };
const TELEGRAM = { alice: "7000002", sam: "7000003", mia: "7000006" } as const;
type Who = keyof typeof TELEGRAM;

describe.each(PROVIDERS)("%s: a resume Confirm is bound to its preflight", (provider) => {
  let h: Harness;
  let router: ChatRouter;
  afterEach(async () => h?.close());
  const setup = async () => {
    h = await createHarness(provider);
    router = createChatRouter({ ctx: h.ctx });
  };
  const actor = (who: Who) => ({ platform: "telegram" as const, userId: TELEGRAM[who] });
  const command = (name: "pause" | "resume", who: Who, text = "") =>
    router.command({ name, text, actor: actor(who), channelId: TELEGRAM[who] }, via);
  const preflight = async (who: Who): Promise<Card> => {
    const reply = await command("resume", who);
    if (reply.kind !== "card") throw new Error(`expected a card, got ${reply.text}`);
    return reply.card;
  };
  const confirm = (card: Card, who: Who, interactionId: string) =>
    router.interaction(
      {
        interactionId,
        action: "resume.confirm",
        token: card.buttons.find((b) => b.action === "resume.confirm")!.token,
        actor: actor(who),
        card: { channelId: "c", messageId: "m" },
      },
      via,
    );
  const control = () => h.ctx.store.db.control.findUniqueOrThrow({ where: { scope: "agent:acme:ops-agent" } });
  const resumes = () => h.ctx.store.db.controlAudit.count({ where: { action: "resume", outcome: "resumed" } });

  test("a used Confirm, re-sent after a new pause, is stale: nothing resumes, and a fresh preflight replaces it", async () => {
    await setup();
    await command("pause", "alice", "vacation");
    const card = await preflight("alice");
    expect((await confirm(card, "alice", "i1")).note).toBe("ops-agent resumed.");
    await command("pause", "sam", "incident");
    expect(await control()).toMatchObject({ state: "PAUSED", holdLevel: "supervisor" });

    for (const id of ["i1", "i2"]) {
      const replay = await confirm(card, "alice", id);
      expect(replay.note).toContain("(stale_card)");
      expect(await control()).toMatchObject({ state: "PAUSED", holdLevel: "supervisor", reason: "incident" });
      // The fresh preflight shows the pause as it is now, with buttons of its own.
      expect(replay.card!.lines[0]).toContain("Paused by sam");
      expect(replay.card!.buttons.map((b) => b.token)).not.toContain(card.buttons[0]!.token);
    }
    expect(await resumes()).toBe(1);
    const fresh = (await confirm(card, "alice", "i3")).card!;
    expect((await confirm(fresh, "alice", "i4")).note).toBe("ops-agent resumed.");
    expect(await resumes()).toBe(2);
  });

  test("a pause raised after the preflight makes its Confirm stale", async () => {
    await setup();
    await command("pause", "mia", "lunch");
    const card = await preflight("alice");
    await command("pause", "sam", "raised"); // supervisor over member: the hold and its reason change
    const click = await confirm(card, "alice", "r1");
    expect(click.note).toContain("(stale_card)");
    expect(click.card!.lines[0]).toContain("supervisor hold");
    expect(await control()).toMatchObject({ state: "PAUSED", holdLevel: "supervisor" });
  });

  test("a cancelled card's Confirm resumes nothing and shows a fresh preflight", async () => {
    await setup();
    await command("pause", "alice", "vacation");
    const card = await preflight("alice");
    const cancel = await router.interaction(
      {
        interactionId: "c1",
        action: "resume.cancel",
        token: card.buttons.find((b) => b.action === "resume.cancel")!.token,
        actor: actor("alice"),
        card: { channelId: "c", messageId: "m" },
      },
      via,
    );
    expect(cancel.note).toBe("Resume cancelled.");
    const late = await confirm(card, "alice", "c2");
    expect(late.note).toContain("(stale_card)");
    expect(late.card!.buttons).toHaveLength(2);
    expect(await control()).toMatchObject({ state: "PAUSED" });
    expect(await resumes()).toBe(0);
  });

  test("a stale card of an agent that is running again is settled, and says so", async () => {
    await setup();
    await command("pause", "alice", "vacation");
    const first = await preflight("alice");
    const second = await preflight("alice");
    expect((await confirm(second, "alice", "s1")).note).toBe("ops-agent resumed.");
    const late = await confirm(first, "alice", "s2");
    expect(late.note).toContain("(not_paused)");
    expect(late.card).toMatchObject({
      buttons: [],
      footer: expect.stringMatching(/^Out of date at .*nothing was resumed/),
    });
    expect(await resumes()).toBe(1);
  });
});
