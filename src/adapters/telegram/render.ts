import type { Card } from "../../bot/surfaces/chat/types";
import { buttonValue, visibleText } from "../../bot/surfaces/chat/types";

/** The three characters Telegram's HTML parse mode reads escaped, invisible ones shown; the rest as written. */
export const escapeTelegram = (text: string) =>
  visibleText(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Telegram refuses a url button to a loopback or private-looking host; such a link is shown as text. */
const buttonable = (url: string) => {
  try {
    const host = new URL(url).hostname;
    return !(host === "localhost" || host.startsWith("127.") || host === "[::1]" || !host.includes("."));
  } catch {
    return false;
  }
};

/**
 * A neutral card as Telegram HTML plus an inline keyboard. Only our own text is bold (the title and the
 * outcome, "Approved by rita at …", which stands apart right under the title); the lines and fields, which a
 * packet writes, are escaped, so they can neither draw bold nor a link. callback_data is "<action>:<16-char
 * token>", at most 31 bytes of Telegram's 64.
 */
export function cardMessage(card: Card) {
  const links = card.links ?? [];
  const text = [
    `<b>${escapeTelegram(card.title)}</b>`,
    ...(card.footer ? ["", `<b>${escapeTelegram(card.footer)}</b>`] : []),
    "",
    ...card.lines.map(escapeTelegram),
    ...card.fields.map((f) => `${escapeTelegram(f.label)}: ${escapeTelegram(f.value)}`),
    ...links.filter((l) => !buttonable(l.url)).map((l) => `${escapeTelegram(l.label)}: ${escapeTelegram(l.url)}`),
  ].join("\n");
  const row = [
    ...card.buttons.map((b) => ({ text: b.label, callback_data: buttonValue(b.action, b.token) })),
    ...links.filter((l) => buttonable(l.url)).map((l) => ({ text: l.label, url: l.url })),
  ];
  const inline_keyboard = row.length ? [row] : [];
  return { text, parse_mode: "HTML" as const, reply_markup: { inline_keyboard } };
}
