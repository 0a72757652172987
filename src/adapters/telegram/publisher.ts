import type { Telegraf } from "telegraf";
import { type CardPublisher, visibleText } from "../../bot/surfaces/chat/types";
import { cardMessage } from "./render";

/** Cards are messages with an inline keyboard; editing replaces the text and the keyboard. */
export function telegramPublisher(bot: Telegraf): CardPublisher {
  return {
    // A private chat's id is the user's id; the bot can write there once the user has started it.
    async openDirect(userId) {
      return userId;
    },
    async post(channelId, card) {
      const { text, parse_mode, reply_markup } = cardMessage(card);
      const sent = await bot.telegram.sendMessage(channelId, text, { parse_mode, reply_markup });
      return { channelId, messageId: String(sent.message_id) };
    },
    async edit(ref, card) {
      const { text, parse_mode, reply_markup } = cardMessage(card);
      await bot.telegram.editMessageText(ref.channelId, Number(ref.messageId), undefined, text, {
        parse_mode,
        reply_markup,
      });
    },
    async say(channelId, text) {
      const sent = await bot.telegram.sendMessage(channelId, visibleText(text));
      return { channelId, messageId: String(sent.message_id) };
    },
  };
}
