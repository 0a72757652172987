import { Telegraf } from "telegraf";
import { message } from "telegraf/filters";
import type {
  ChatActor,
  ChatAdapter,
  ChatLog,
  ChatRouter,
  ChatTransport,
  CommandName,
  RawHttpRoute,
} from "../../bot/surfaces/chat/types";
import { COMMAND_NAMES, parseButtonValue } from "../../bot/surfaces/chat/types";
import { telegramPublisher } from "./publisher";
import { webhookRoute } from "./webhook";

export interface TelegramAdapterOptions {
  token: string;
  /** Present: updates arrive at `POST /telegram/webhook` with this secret. Absent: long polling. */
  webhookSecret?: string;
  /** Default https://api.telegram.org. */
  apiRoot?: string;
  router: ChatRouter;
  log: ChatLog;
}

const COMMAND_LIST = [
  { command: "pause", description: "[agent] reason [until 2026-12-14 | 2h]" },
  { command: "resume", description: "[agent] show what a resume releases, then confirm" },
  { command: "status", description: "[agent] pause state and held work" },
  { command: "approvals", description: "what waits for your decision" },
  { command: "console", description: "a one-time sign-in link to the web console" },
  { command: "escalations", description: "what is escalating to you" },
];

export function createTelegramAdapter(options: TelegramAdapterOptions): ChatAdapter {
  // webhookReply off: every call reaches the API, and the webhook answer does not depend on the handler.
  const bot = new Telegraf(options.token, {
    telegram: { apiRoot: options.apiRoot ?? "https://api.telegram.org", webhookReply: false },
  });
  const { router, log } = options;
  const publisher = telegramPublisher(bot);
  const transport: ChatTransport = {
    platform: "telegram",
    async checkCredentials() {
      const me = await bot.telegram.getMe();
      return { ok: true, detail: `getMe ok (@${me.username})` };
    },
  };
  const actorOf = (from: { id: number; first_name: string }): ChatActor => ({
    platform: "telegram",
    userId: String(from.id),
    displayName: from.first_name,
  });

  bot.command([...COMMAND_NAMES], async (ctx) => {
    const name = ctx.command as CommandName;
    const channelId = String(ctx.chat.id);
    const reply = await router.command({ name, text: ctx.payload, actor: actorOf(ctx.from), channelId }, transport);
    // Telegram has no ephemeral messages; in a private chat only the caller sees the reply anyway.
    if (reply.kind === "card") await publisher.post(channelId, reply.card);
    else await ctx.reply(reply.text);
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
    await ctx.answerCbQuery(result.note.slice(0, 200));
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
    if (reply?.kind === "text") await ctx.reply(reply.text);
  });
  bot.catch((error) => log.error({ err: (error as Error).message }, "telegram update failed"));

  const routes: RawHttpRoute[] = options.webhookSecret ? [webhookRoute(bot, options.webhookSecret, log)] : [];
  let polling: Promise<void> | undefined;
  return {
    platform: "telegram",
    publisher,
    routes,
    async start() {
      bot.botInfo = await bot.telegram.getMe();
      await bot.telegram.setMyCommands(COMMAND_LIST);
      if (!options.webhookSecret) {
        polling = bot.launch().catch((error: Error) => log.error({ err: error.message }, "telegram polling stopped"));
      }
      log.info({ mode: options.webhookSecret ? "webhook" : "polling" }, "telegram ready");
    },
    async stop() {
      if (polling) {
        bot.stop("shutdown");
        await polling;
      }
    },
  };
}
