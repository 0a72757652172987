import type { Card } from "../../bot/chat/types";
import { buttonValue } from "../../bot/chat/types";

/**
 * A neutral card as Telegram text plus an inline keyboard. Plain text (no parse_mode) so names and reasons
 * never need escaping. callback_data is "<action>:<16-char token>", at most 31 bytes of Telegram's 64.
 */
export function cardMessage(card: Card) {
  const text = [
    card.title,
    "",
    ...card.lines,
    ...card.fields.map((f) => `${f.label}: ${f.value}`),
    ...(card.footer ? ["", card.footer] : []),
  ].join("\n");
  const inline_keyboard = card.buttons.length
    ? [card.buttons.map((b) => ({ text: b.label, callback_data: buttonValue(b.action, b.token) }))]
    : [];
  return { text, reply_markup: { inline_keyboard } };
}
