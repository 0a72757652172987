import { describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import { callbackQueryUpdate, type TelegramFake } from "../fakes/telegram-fake";
import {
  cardRows,
  createRunWithCards,
  decideThroughApi,
  decisionRows,
  outboxRows,
  runSnapshot,
  saveChangedPacket,
} from "../support/approval-cards";
import type { ChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { TELEGRAM_SECRET, TELEGRAM_TOKEN, useTelegramChat } from "../support/platform-chats";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // Approval cards on real Telegraf behind `POST /telegram/webhook`: rita's private chat is her user id.

  const SECRET = TELEGRAM_SECRET;
  const RITA = 7000004;
  const MIA = 7000006;

  let fake: TelegramFake;
  let h: ChatHarness;

  useTelegramChat(provider, (started) => ({ fake, h } = started));

  type Sent = {
    chat_id: string;
    text: string;
    reply_markup: { inline_keyboard: Array<Array<{ callback_data: string }>> };
  };

  async function cardFor(runId: string, version: number) {
    const row = (await cardRows(h, runId)).find((c) => c.version === version)!;
    const sent = fake
      .callsTo("sendMessage")
      .map((c) => c.json as Sent)
      .find((m) => m.text.includes(`Run: ${runId}\n`) && m.text.includes(`Version: ${version}\n`))!;
    const [approve, deny] = sent.reply_markup.inline_keyboard[0]!.map((b) => b.callback_data);
    return { row, sent, approve: approve!, deny: deny! };
  }

  /** Posts a callback_query; returns the webhook status and the toast (answerCallbackQuery) it produced. */
  async function click(id: string, data: string, from: number, messageId: number, secret = SECRET) {
    const answers = fake.callsTo("answerCallbackQuery").length;
    const response = await fetch(`${h.url}/telegram/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify(callbackQueryUpdate({ id, fromId: from, chatId: RITA, messageId, data })),
    });
    await response.text();
    const toast = fake.callsTo("answerCallbackQuery")[answers]?.json as
      | { callback_query_id: string; text: string }
      | undefined;
    return { status: response.status, toast };
  }

  describe("telegram approval cards", () => {
    test("Approve records the decision, one outbox row, edits the card; the same callback again is a duplicate", async () => {
      const run = await createRunWithCards(h, "tg-approve");
      const card = await cardFor(run.id, 1);
      expect(card.sent.chat_id).toBe(String(RITA));
      expect(card.sent.text).toContain("Evidence: quote.pdf; po-7.pdf");
      const approved = await click("cbq-tg-1", card.approve, RITA, Number(card.row.messageId));
      expect(approved.toast).toMatchObject({
        callback_query_id: "cbq-tg-1",
        text: expect.stringContaining("(approved)"),
      });
      await h.chat.cards.sync(runKey("acme", run.id));
      expect(await decisionRows(h, run.id)).toMatchObject([{ eventId: "telegram:cbq-tg-1", result: "approved" }]);
      expect(await outboxRows(h, run.id)).toHaveLength(1);
      const edit = fake.callsTo("editMessageText").at(-1)!.json as Sent & { message_id: number };
      expect(edit).toMatchObject({
        chat_id: String(RITA),
        message_id: Number(card.row.messageId),
        reply_markup: { inline_keyboard: [] },
      });
      expect(edit.text).toMatch(/Approved by rita at/);

      const before = await runSnapshot(h, run.id);
      expect((await click("cbq-tg-1", card.approve, RITA, Number(card.row.messageId))).toast!.text).toContain(
        "(duplicate)",
      );
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });

    test("a superseded card's click is stale; a non-reviewer's is refused; neither changes anything", async () => {
      const run = await createRunWithCards(h, "tg-stale");
      const old = await cardFor(run.id, 1);
      await saveChangedPacket(h, run.id, 900);
      const before = await runSnapshot(h, run.id);
      expect((await click("cbq-tg-2", old.approve, RITA, Number(old.row.messageId))).toast!.text).toBe(
        "This card is for version 1; the packet is now version 2. Decide on the newest card. (stale)",
      );
      const fresh = await cardFor(run.id, 2);
      expect((await click("cbq-tg-3", fresh.approve, MIA, Number(fresh.row.messageId))).toast!.text).toContain(
        "(rejected)",
      );
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });

    test("a click with a wrong webhook secret gets 403 and changes nothing", async () => {
      const run = await createRunWithCards(h, "tg-forged");
      const card = await cardFor(run.id, 1);
      const before = await runSnapshot(h, run.id);
      const forged = await click("cbq-tg-4", card.approve, RITA, Number(card.row.messageId), "not-the-secret");
      expect(forged).toEqual({ status: 403, toast: undefined });
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });

    test("an edit the platform refused stays open and is made by the next sync", async () => {
      const run = await createRunWithCards(h, "tg-retry");
      const refuse = fake.respond(`/bot${TELEGRAM_TOKEN}/editMessageText`, () => ({
        status: 429,
        body: { ok: false, error_code: 429, description: "Too Many Requests: retry after 1" },
      }));
      try {
        const body = { eventId: "api-tg-retry", action: "deny" as const, version: run.version, digest: run.digest };
        expect((await decideThroughApi(h, run.id, body)).json.result).toBe("denied");
        expect((await cardRows(h, run.id)).map((c) => c.shows)).toEqual(["open"]);
      } finally {
        refuse();
      }
      await h.chat.cards.sync(runKey("acme", run.id)); // what the sweep does for runs with an open card
      expect((await cardRows(h, run.id)).map((c) => c.shows)).toEqual(["denied"]);
      expect(String((fake.callsTo("editMessageText").at(-1)!.json as Sent).text)).toMatch(/Denied by rita at/);
    });
  });
});
