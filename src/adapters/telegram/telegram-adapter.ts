import { Telegraf } from "telegraf";
import type { ChatAdapter, ChatLog, ChatRouter, ChatTransport, RawHttpRoute } from "../../bot/surfaces/chat/types";
import { telegramPublisher } from "./publisher";
import { registerTelegramUpdates } from "./updates";
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
  { command: "maintenance", description: "admins: start [reason] holds the deployment for a deploy; end lets it go" },
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
  registerTelegramUpdates(bot, router, transport, publisher);
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
