import type { Chat, Message, Update, User } from "telegraf/types";

// Builders for Bot API updates, typed with telegraf's own types so a wrong shape fails to compile.

let updateCounter = 1000;
const now = () => Math.floor(Date.now() / 1000);

export const telegramUser = (id: number, firstName = "Alice"): User => ({
  id,
  is_bot: false,
  first_name: firstName,
  username: firstName.toLowerCase(),
  language_code: "en",
});

/** Negative ids are groups on Telegram; positive ones are private chats with that user. */
export function telegramChat(id: number): Chat.PrivateChat | Chat.SupergroupChat {
  return id < 0 ? { id, type: "supergroup", title: "Ops" } : { id, type: "private", first_name: "Alice" };
}

export interface TextMessageFields {
  /** Defaults to an increasing counter; Telegraf does not care, long polling offsets do. */
  updateId?: number;
  messageId?: number;
  fromId?: number;
  /** Defaults to `fromId`, i.e. a private chat with the sender. */
  chatId?: number;
  text: string;
}

export function textMessageUpdate(fields: TextMessageFields, entities?: Message.TextMessage["entities"]) {
  const fromId = fields.fromId ?? 7;
  const update: Update.MessageUpdate<Message.TextMessage> = {
    update_id: fields.updateId ?? ++updateCounter,
    message: {
      message_id: fields.messageId ?? 1,
      date: now(),
      chat: telegramChat(fields.chatId ?? fromId),
      from: telegramUser(fromId),
      text: fields.text,
      ...(entities && { entities }),
    },
  };
  return update;
}

/** A `/command args` message. The bot_command entity is what makes Telegraf's `bot.command()` match. */
export function commandUpdate(fields: TextMessageFields) {
  if (!fields.text.startsWith("/")) throw new Error(`commandUpdate: "${fields.text}" does not start with "/"`);
  const command = fields.text.split(/\s/, 1)[0] ?? fields.text;
  // Entity offsets and lengths count UTF-16 code units, which is what String#length counts too.
  return textMessageUpdate(fields, [{ type: "bot_command", offset: 0, length: command.length }]);
}

export interface CallbackQueryFields {
  updateId?: number;
  id?: string;
  fromId?: number;
  chatId?: number;
  /** The bot message carrying the inline keyboard. */
  messageId?: number;
  messageText?: string;
  data: string;
  botId?: number;
}

export function callbackQueryUpdate(fields: CallbackQueryFields) {
  const fromId = fields.fromId ?? 7;
  const updateId = fields.updateId ?? ++updateCounter;
  const update: Update.CallbackQueryUpdate = {
    update_id: updateId,
    callback_query: {
      id: fields.id ?? `cbq-${updateId}`,
      from: telegramUser(fromId),
      chat_instance: "fake-chat-instance",
      data: fields.data,
      message: {
        message_id: fields.messageId ?? 2,
        date: now(),
        chat: telegramChat(fields.chatId ?? fromId),
        from: { id: fields.botId ?? 123456, is_bot: true, first_name: "Holdfast", username: "holdfast_bot" },
        text: fields.messageText ?? "",
      },
    },
  };
  return update;
}
