import type { Telegraf } from "telegraf";
import { message } from "telegraf/filters";
import type { CardPublisher, ChatActor, ChatRouter, ChatTransport, CommandName } from "../../bot/surfaces/chat/types";
import { COMMAND_NAMES, parseButtonValue, visibleText } from "../../bot/surfaces/chat/types";

const actorOf = (from: { id: number; first_name: string }): ChatActor => ({
  platform: "telegram",
  userId: String(from.id),
  displayName: from.first_name,
});

/** Commands, button callbacks and text messages, each turned into one call of the neutral router. */
export function registerTelegramUpdates(
  bot: Telegraf,
  router: ChatRouter,
  transport: ChatTransport,
  publisher: CardPublisher,
): void {
  bot.command([...COMMAND_NAMES], async (ctx) => {
    const name = ctx.command as CommandName;
    const channelId = String(ctx.chat.id);
    const reply = await router.command({ name, text: ctx.payload, actor: actorOf(ctx.from), channelId }, transport);
    // Telegram has no ephemeral messages; in a private chat only the caller sees the reply anyway.
    if (reply.kind === "card") await publisher.post(channelId, reply.card);
    else await ctx.reply(visibleText(reply.text));
  });

  bot.on("callback_query", async (ctx) => {
    const data = "data" in ctx.callbackQuery ? ctx.callbackQuery.data : "";
    const parsed = parseButtonValue(data);
    const carrier = ctx.callbackQuery.message;
    if (!parsed || !carrier) return ctx.answerCbQuery();
    const card = { channelId: String(carrier.chat.id), messageId: String(carrier.message_id) };
    const result = await router.interaction(
      { interactionId: ctx.callbackQuery.id, ...parsed, actor: actorOf(ctx.from), card },
      transport,
    );
    // The toast is the closest Telegram has to an ephemeral note; it also stops the button's spinner.
    await ctx.answerCbQuery(visibleText(result.note).slice(0, 200));
    if (result.card) await publisher.edit(card, result.card);
  });

  bot.on(message("text"), async (ctx) => {
    const isDirect = ctx.chat.type === "private";
    const mention = `@${ctx.botInfo.username}`;
    if (!isDirect && !ctx.message.text.includes(mention)) return;
    const text = ctx.message.text.replace(mention, "").trim();
    const reply = await router.message(
      {
        messageId: String(ctx.message.message_id),
        channelId: String(ctx.chat.id),
        text,
        actor: actorOf(ctx.from),
        isDirect,
      },
      transport,
    );
    if (reply?.kind === "text") await ctx.reply(visibleText(reply.text));
  });
}
