import { ButtonStyle, ComponentType, escapeMarkdown } from "discord.js";
import type { Card, ButtonStyle as NeutralStyle } from "../../bot/surfaces/chat/types";
import { buttonValue, visibleText } from "../../bot/surfaces/chat/types";

const STYLE: Record<NeutralStyle, ButtonStyle> = {
  primary: ButtonStyle.Primary,
  danger: ButtonStyle.Danger,
  default: ButtonStyle.Secondary,
};

/** Nothing we send pings anyone: agent text may say `@everyone` or `<@id>`. */
export const NO_MENTIONS = { parse: [] as never[] };

/**
 * Text shown as written: every markdown construct escaped (masked links, headings and lists too), `<`
 * escaped so `<@id>`, `<#channel>` and `<t:…>` stay text, and invisible characters shown.
 */
export const escapeDiscord = (text: string) =>
  escapeMarkdown(visibleText(text), {
    heading: true,
    bulletedList: true,
    numberedList: true,
    maskedLink: true,
  }).replace(/</g, "\\<");

/**
 * A neutral card as a Discord message body: one embed, and one row of buttons while it is open. The outcome
 * ("Approved by rita at …") is the embed's footer, which renders no markdown and only ever holds our own text;
 * the lines and fields, which a packet writes, are escaped.
 */
export function cardMessage(card: Card) {
  return {
    content: "",
    allowed_mentions: NO_MENTIONS,
    embeds: [
      {
        title: escapeDiscord(card.title).slice(0, 256),
        description: escapeDiscord(card.lines.join("\n")).slice(0, 4096) || undefined,
        fields: card.fields.map((f) => ({ name: f.label, value: escapeDiscord(f.value).slice(0, 1024), inline: true })),
        ...(card.footer && { footer: { text: visibleText(card.footer).slice(0, 2048) } }),
      },
    ],
    // custom_id is "<action>:<16-char token>", far below Discord's 100-character limit.
    components:
      card.buttons.length || card.links?.length
        ? [
            {
              type: ComponentType.ActionRow,
              components: [
                ...card.buttons.map((b) => ({
                  type: ComponentType.Button,
                  style: STYLE[b.style],
                  label: b.label,
                  custom_id: buttonValue(b.action, b.token),
                })),
                ...(card.links ?? []).map((l) => ({
                  type: ComponentType.Button,
                  style: ButtonStyle.Link,
                  label: l.label,
                  url: l.url,
                })),
              ],
            },
          ]
        : [],
  };
}
