import type { Update } from "telegraf/types";
import { type RecordedCall, type RecordingServer, startRecordingServer } from "./recording-http";
import { telegramChat } from "./telegram-updates";

export * from "./telegram-updates";

// Fake of the Bot API at `POST /bot<token>/<method>`. Pass `url` as Telegraf's `telegram.apiRoot`.

export interface TelegramFake extends RecordingServer {
  /** Makes the update available to the next getUpdates (long polling). */
  queueUpdate(update: Update): void;
  /** Recorded calls of one Bot API method, e.g. "sendMessage". */
  callsTo(method: string): RecordedCall[];
}

/** Real getUpdates may hold 50 s; tests must not. */
const MAX_LONG_POLL_MS = 1000;

type Params = Record<string, unknown>;

export async function startTelegramFake(token: string, botUsername = "holdfast_bot"): Promise<TelegramFake> {
  const botId = Number(token.split(":")[0]) || 123456;
  const bot = { id: botId, is_bot: true, first_name: "Holdfast", username: botUsername };
  let lastMessageId = 0;
  const texts = new Map<string, string>(); // chat:message -> text, so edits can echo it back
  const queue: Update[] = [];
  const pollers = new Set<() => void>();

  const sentMessage = (params: Params, messageId: number, text?: string) => {
    const chatId = Number(params.chat_id);
    const key = `${chatId}:${messageId}`;
    if (text !== undefined) texts.set(key, text);
    return {
      message_id: messageId,
      date: Math.floor(Date.now() / 1000),
      chat: telegramChat(chatId),
      from: bot,
      text: texts.get(key) ?? "",
      ...(params.reply_markup !== undefined && { reply_markup: params.reply_markup }),
    };
  };
  const edited = (params: Params, text?: string) =>
    // Inline-mode messages have no chat; the Bot API then answers plain `true`.
    params.inline_message_id
      ? true
      : { ...sentMessage(params, Number(params.message_id), text), edit_date: Math.floor(Date.now() / 1000) };

  const getUpdates = async (params: Params): Promise<Update[]> => {
    // An offset confirms every update below it, exactly like the Bot API.
    const offset = Number(params.offset ?? 0);
    while (queue.length > 0 && queue[0]!.update_id < offset) queue.shift();
    if (queue.length === 0) {
      const holdMs = Math.min(Number(params.timeout ?? 0) * 1000, MAX_LONG_POLL_MS);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          pollers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, holdMs);
        pollers.add(wake);
      });
    }
    return queue.slice(0, Number(params.limit ?? 100));
  };

  const methods: Record<string, (params: Params) => unknown> = {
    getMe: () => bot,
    setMyCommands: () => true,
    deleteMyCommands: () => true,
    setWebhook: () => true,
    deleteWebhook: () => true,
    answerCallbackQuery: () => true,
    sendMessage: (params) => sentMessage(params, ++lastMessageId, String(params.text ?? "")),
    editMessageText: (params) => edited(params, String(params.text ?? "")),
    editMessageReplyMarkup: (params) => edited(params),
    getUpdates,
  };

  const server = await startRecordingServer(async (call) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(call.path);
    if (!match) return undefined;
    const [, callToken, method] = match;
    if (callToken !== token) return { status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } };
    const handler = methods[method!];
    if (!handler) return { status: 404, body: { ok: false, error_code: 404, description: "Not Found" } };
    // Telegraf sends JSON; form bodies (curl-style clients) carry the same fields. Multipart uploads are not parsed.
    const params: Params = { ...call.query, ...call.form, ...(call.json as Params | undefined) };
    return { body: { ok: true, result: await handler(params) } };
  });

  return {
    ...server,
    queueUpdate(update) {
      queue.push(update);
      for (const wake of [...pollers]) wake();
    },
    callsTo: (method) => server.calls.filter((c) => c.path === `/bot${token}/${method}`),
    async close() {
      // Answer held long polls (with []) before closing, so a polling client sees a clean reply, not a reset.
      for (const wake of [...pollers]) wake();
      await new Promise((resolve) => setImmediate(resolve));
      await server.close();
    },
  };
}
