import { timingSafeEqual } from "node:crypto";
import type { Telegraf } from "telegraf";
import type { Update } from "telegraf/types";
import type { ChatLog, RawHttpRoute } from "../../bot/surfaces/chat/types";
import { header } from "../../bot/surfaces/chat/types";

/** `POST /telegram/webhook`: Telegram sends the secret given to setWebhook in a header; anything else is 403. */
export function webhookRoute(bot: Telegraf, secret: string, log: ChatLog): RawHttpRoute {
  const expected = Buffer.from(secret);
  return {
    path: "/telegram/webhook",
    async handle(request) {
      const given = Buffer.from(header(request, "x-telegram-bot-api-secret-token") ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 403 };
      let update: unknown;
      try {
        update = JSON.parse(request.body);
      } catch {
        return { status: 400 };
      }
      // Telegram sends an update again until it gets a 2xx, so one that cannot be read is acknowledged and
      // dropped (a signed `null` would otherwise throw inside Telegraf, and be redelivered for a day).
      if (!isUpdate(update)) {
        log.warn({ kind: update === null ? "null" : typeof update }, "telegram update dropped: malformed");
        return { status: 200 };
      }
      await bot.handleUpdate(update).catch((error: Error) => {
        log.warn({ update: update.update_id, err: error.message }, "telegram update dropped: could not be handled");
      });
      return { status: 200 };
    },
  };
}

const isUpdate = (value: unknown): value is Update =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Number.isSafeInteger((value as Update).update_id);
