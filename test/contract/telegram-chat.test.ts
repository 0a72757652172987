import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { RecordedCall } from "../fakes/recording-http";
import {
  callbackQueryUpdate,
  commandUpdate,
  startTelegramFake,
  type TelegramFake,
  textMessageUpdate,
} from "../fakes/telegram-fake";
import { agentSays, type ChatHarness, startChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // Real Telegraf behind `POST /telegram/webhook`, against the Bot API fake.

  const TOKEN = "123456:TEST-TOKEN";
  const SECRET = "telegram-webhook-secret";
  const USERS = { ada: 7000001, alice: 7000002, mia: 7000006 } as const;

  let fake: TelegramFake;
  let h: ChatHarness;
  let seq = 0;

  beforeAll(async () => {
    fake = await startTelegramFake(TOKEN);
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    h = await startChatHarness(provider, {
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: fake.url,
    });
    fake.calls.length = 0;
    return () => h.close();
  });

  async function post(update: object, secret = SECRET) {
    const response = await fetch(`${h.url}/telegram/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify(update),
    });
    await response.text();
    return response.status;
  }

  /** Sends `/command args` from a user's private chat and returns the bot's next message there. */
  async function command(text: string, from: number) {
    const before = fake.callsTo("sendMessage").length;
    expect(await post(commandUpdate({ fromId: from, text, messageId: ++seq }))).toBe(200);
    return fake.waitFor((c) => c.path.endsWith("/sendMessage") && fake.callsTo("sendMessage").indexOf(c) >= before);
  }

  const textOf = (call: RecordedCall) => (call.json as { text: string }).text;
  type Keyboard = { inline_keyboard: Array<Array<{ callback_data: string }>> };

  describe("telegram", () => {
    test("the command list is set on start", async () => {
      const h2 = await startChatHarness(provider, {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_WEBHOOK_SECRET: SECRET,
        TELEGRAM_API_ROOT: fake.url,
      });
      await h2.close();
      const set = fake.callsTo("setMyCommands").at(-1)!.json as { commands: Array<{ command: string }> };
      expect(set.commands.map((c) => c.command)).toEqual([
        "pause",
        "resume",
        "status",
        "approvals",
        "console",
        "escalations",
        "maintenance",
      ]);
    });

    test("a member pauses but cannot resume; the principal confirms a preflight card with the held counts", async () => {
      expect(textOf(await command("/pause vacation until 2099-12-14", USERS.mia))).toContain(
        "Automatic resume at 2099-12-14 00:00 UTC",
      );
      expect(await h.control()).toMatchObject({
        state: "PAUSED",
        holdLevel: "member",
        until: new Date("2099-12-14T00:00:00Z"),
      });
      expect(textOf(await command("/resume", USERS.mia))).toContain("(forbidden)");

      const db = h.db.store.db;
      const agentId = "acme:ops-agent";
      for (const [i, trigger] of ["daily", "daily", "hourly"].entries()) {
        await db.occurrence.create({
          data: {
            id: `o${i}`,
            triggerId: `${agentId}:${trigger}`,
            tenantId: "acme",
            agentId,
            dueAt: new Date(),
            state: "HELD",
          },
        });
      }
      await db.inboxEvent.create({
        data: { tenantId: "acme", agentId, eventId: "e1", fingerprint: "f", type: "t", payload: "{}", state: "HELD" },
      });
      await db.outboxItem.create({
        data: { id: "x1", kind: "action", tenantId: "acme", agentId, destination: "d", payload: "{}" },
      });
      await db.outboxItem.create({
        data: {
          id: "x2",
          kind: "action",
          tenantId: "acme",
          agentId,
          destination: "d",
          payload: "{}",
          state: "NEEDS_REVIEW",
        },
      });

      const card = await command("/resume", USERS.alice);
      const text = textOf(card);
      expect(text).toContain("Held trigger occurrences: 3 (daily ×2, hourly ×1)");
      expect(text).toContain("Held inbound events: 1");
      expect(text).toContain("Held outbound actions: 1");
      expect(text).toContain("Items needing review: 1");
      expect(text).toContain("Resuming: alice (principal)");
      expect(text).toContain("Platform credentials: ok: getMe ok (@holdfast_bot)");
      const [confirm, cancel] = (card.json as { reply_markup: Keyboard }).reply_markup.inline_keyboard[0]!.map(
        (b) => b.callback_data,
      );
      expect(Buffer.byteLength(confirm!)).toBeLessThanOrEqual(64);

      // Someone else's Cancel and an unauthorized Confirm are refused and change nothing.
      await post(
        callbackQueryUpdate({ id: "cb-1", fromId: USERS.mia, chatId: USERS.alice, messageId: 5, data: cancel! }),
      );
      await post(
        callbackQueryUpdate({ id: "cb-2", fromId: USERS.mia, chatId: USERS.alice, messageId: 5, data: confirm! }),
      );
      const answers = fake.callsTo("answerCallbackQuery").map((c) => (c.json as { text: string }).text);
      expect(answers).toEqual([expect.stringContaining("(cancel_forbidden)"), expect.stringContaining("(forbidden)")]);
      expect(fake.callsTo("editMessageText")).toHaveLength(0);
      expect(await h.control()).toMatchObject({ state: "PAUSED" });

      await post(
        callbackQueryUpdate({ id: "cb-3", fromId: USERS.alice, chatId: USERS.alice, messageId: 5, data: confirm! }),
      );
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      const edit = (await fake.waitFor((c) => c.path.endsWith("/editMessageText"))).json as Record<string, unknown>;
      expect(edit).toMatchObject({
        chat_id: String(USERS.alice),
        message_id: 5,
        reply_markup: { inline_keyboard: [] },
      });
      expect(String(edit.text)).toMatch(/Resumed by alice at/);

      // A second Confirm finds the agent running: nothing is resumed twice.
      await post(
        callbackQueryUpdate({ id: "cb-4", fromId: USERS.alice, chatId: USERS.alice, messageId: 5, data: confirm! }),
      );
      const resumed = await db.controlAudit.count({ where: { action: "resume", outcome: "resumed" } });
      expect(resumed).toBe(1);
    });

    test("an admin hold cannot be lifted by the principal", async () => {
      await command("/pause incident", USERS.ada);
      expect(textOf(await command("/resume", USERS.alice))).toContain("(creator_hold)");
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "admin" });
    });

    test("a wrong webhook secret gets 403 and changes nothing", async () => {
      expect(await post(commandUpdate({ fromId: USERS.ada, text: "/pause x" }), "wrong")).toBe(403);
      expect(await post(commandUpdate({ fromId: USERS.ada, text: "/pause x" }), "")).toBe(403);
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      expect(fake.callsTo("sendMessage")).toHaveLength(0);
    });

    test("unknown users are politely refused", async () => {
      expect(textOf(await command("/pause x", 7009999))).toContain("I don't know you yet");
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
    });

    test("a DM while paused reaches the agent, and the agent's reply reaches the chat", async () => {
      await command("/pause vacation", USERS.alice);
      expect(await post(textMessageUpdate({ fromId: USERS.alice, messageId: 42, text: "ping" }))).toBe(200);
      const delivered = await h.agent.waitFor((c) => c.path === "/agent");
      expect(delivered.headers["idempotency-key"]).toBe(`telegram:${USERS.alice}:42`);
      expect(delivered.json).toMatchObject({
        platform: "telegram",
        user: "alice",
        text: "ping",
        channel: String(USERS.alice),
      });
      expect(await h.control()).toMatchObject({ state: "PAUSED" });

      expect((await agentSays(h, { platform: "telegram", channel: String(USERS.alice), text: "pong" })).status).toBe(
        201,
      );
      const sent = await fake.waitFor((c) => c.path.endsWith("/sendMessage") && textOf(c) === "pong");
      expect(sent.json).toMatchObject({ chat_id: String(USERS.alice) });
    });
  });
});
