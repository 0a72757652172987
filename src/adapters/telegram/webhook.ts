import { timingSafeEqual } from "node:crypto";
import type { Telegraf } from "telegraf";
import type { Update } from "telegraf/types";
import type { RawHttpRoute } from "../../bot/chat/types";
import { header } from "../../bot/chat/types";

/** `POST /telegram/webhook`: Telegram sends the secret given to setWebhook in a header; anything else is 403. */
export function webhookRoute(bot: Telegraf, secret: string): RawHttpRoute {
  const expected = Buffer.from(secret);
  return {
    path: "/telegram/webhook",
    async handle(request) {
      const given = Buffer.from(header(request, "x-telegram-bot-api-secret-token") ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 403 };
      let update: Update;
      try {
        update = JSON.parse(request.body) as Update;
      } catch {
        return { status: 400 };
      }
      await bot.handleUpdate(update);
      return { status: 200 };
    },
  };
}
