import { describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import { callbackQueryUpdate, type TelegramFake } from "../fakes/telegram-fake";
import { cardRows, chatMonitor, createRunWithCards, decisionRows, pingRows } from "../support/approval-cards";
import type { ChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { TELEGRAM_SECRET, useTelegramChat } from "../support/platform-chats";

// Escalation pings on real Telegraf: bob's private chat is his user id; Open is a url inline button.
describe.each(PROVIDERS)("on %s", (provider) => {
  const SECRET = TELEGRAM_SECRET;
  const BOB = 7000005;

  let fake: TelegramFake;
  let h: ChatHarness;

  useTelegramChat(provider, (started) => ({ fake, h } = started));

  type Key = { text: string; callback_data?: string; url?: string };
  type Sent = { chat_id: string; text: string; message_id?: number; reply_markup: { inline_keyboard: Key[][] } };

  async function click(id: string, data: string, messageId: number) {
    const answers = fake.callsTo("answerCallbackQuery").length;
    const response = await fetch(`${h.url}/telegram/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
      body: JSON.stringify(callbackQueryUpdate({ id, fromId: BOB, chatId: BOB, messageId, data })),
    });
    await response.text();
    return (fake.callsTo("answerCallbackQuery")[answers]!.json as { text: string }).text;
  }

  test("the ping card; Take over sends bob the approval card, whose Approve decides; the ping is then settled", async () => {
    const run = await createRunWithCards(h, "tg-esc", { deadline: new Date(Date.now() + 24 * 3_600_000) });
    const monitor = chatMonitor(h);
    await monitor.tick();
    await monitor.tick();
    const toBob = () =>
      fake
        .callsTo("sendMessage")
        .map((c) => c.json as Sent)
        .filter((m) => String(m.chat_id) === String(BOB));
    expect(toBob()).toHaveLength(1);
    const ping = toBob()[0]!;
    expect(ping.text.split("\n")[0]).toBe("<b>Escalation level 1: an approval waits</b>");
    for (const shown of ["Run: tg-esc\n", "Operation: send-invoice\n", "Digest: sha256:", "Level: 1"])
      expect(ping.text).toContain(shown);
    const [ack, takeOver, open] = ping.reply_markup.inline_keyboard[0]!;
    expect([ack!.text, takeOver!.text]).toEqual(["Acknowledge", "Take over"]);
    expect(open).toEqual({ text: "Open", url: "https://holdfast.example.test/approvals#tg-esc" });
    const [row] = await pingRows(h, run.id);

    expect(await click("tg-esc-take", takeOver!.callback_data!, Number(row!.messageId))).toBe(
      "You are now a reviewer of run tg-esc (version 1); its approval card is on its way.",
    );
    await h.chat.cards.sync(runKey("acme", run.id));
    const card = (await cardRows(h, run.id)).find((c) => c.channelId === String(BOB))!;
    const approve = toBob()
      .at(-1)!
      .reply_markup.inline_keyboard[0]!.find((k) => k.callback_data?.startsWith("run.approve:"))!;
    expect(await click("tg-esc-approve", approve.callback_data!, Number(card.messageId))).toContain("(approved)");
    expect(await decisionRows(h, run.id)).toMatchObject([{ actorId: "acme:bob", result: "approved" }]);

    await monitor.tick();
    const edit = fake
      .callsTo("editMessageText")
      .map((c) => c.json as Sent)
      .find((m) => String(m.message_id) === row!.messageId)!;
    expect(edit.text).toMatch(/<b>Resolved: approved by bob at /);
    expect(edit.reply_markup?.inline_keyboard ?? []).toEqual([]);
  });
});
