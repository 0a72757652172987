import { ButtonStyle, ComponentType } from "discord.js";
import type { Card, ButtonStyle as NeutralStyle } from "../../bot/chat/types";
import { buttonValue } from "../../bot/chat/types";

const STYLE: Record<NeutralStyle, ButtonStyle> = {
  primary: ButtonStyle.Primary,
  danger: ButtonStyle.Danger,
  default: ButtonStyle.Secondary,
};

/** A neutral card as a Discord message body: one embed, and one row of buttons while it is open. */
export function cardMessage(card: Card) {
  return {
    content: "",
    embeds: [
      {
        title: card.title.slice(0, 256),
        description: card.lines.join("\n").slice(0, 4096) || undefined,
        fields: card.fields.map((f) => ({ name: f.label, value: f.value.slice(0, 1024), inline: true })),
        ...(card.footer && { footer: { text: card.footer } }),
      },
    ],
    // custom_id is "<action>:<16-char token>", far below Discord's 100-character limit.
    components: card.buttons.length
      ? [
          {
            type: ComponentType.ActionRow,
            components: card.buttons.map((b) => ({
              type: ComponentType.Button,
              style: STYLE[b.style],
              label: b.label,
              custom_id: buttonValue(b.action, b.token),
            })),
          },
        ]
      : [],
  };
}
