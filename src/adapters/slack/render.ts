import { type Card, visibleText } from "../../bot/surfaces/chat/types";

/** Slack's control characters (links, mentions such as `<!channel>`) escaped, invisible ones shown. */
export const escapeSlack = (text: string) =>
  visibleText(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Text that is shown as typed: no bold, no links, no mentions, no emoji codes. */
const plain = (text: string, max: number) => ({
  type: "plain_text",
  text: escapeSlack(text).slice(0, max),
  emoji: false,
});

/**
 * A neutral card as Block Kit. Everything a packet or a person could have written (the lines and the field
 * values) is plain_text; the outcome ("Approved by rita at …") is the only mrkdwn, in a block of its own
 * right under the title, so no packet field can draw it. `text` is the notification fallback Slack requires.
 */
export function cardBlocks(card: Card): { text: string; blocks: object[] } {
  const blocks: object[] = [{ type: "header", text: plain(card.title, 150) }];
  if (card.footer) {
    blocks.push({
      type: "section",
      block_id: "holdfast-outcome",
      text: { type: "mrkdwn", text: `*${escapeSlack(card.footer)}*` },
    });
  }
  if (card.lines.length) blocks.push({ type: "section", text: plain(card.lines.join("\n"), 3000) });
  if (card.fields.length) {
    blocks.push({ type: "section", fields: card.fields.map((f) => plain(`${f.label}: ${f.value}`, 2000)) });
  }
  const links = card.links ?? [];
  if (card.buttons.length || links.length) {
    blocks.push({
      type: "actions",
      block_id: "holdfast-actions",
      elements: [
        ...card.buttons.map((b) => ({
          type: "button",
          action_id: b.action,
          value: b.token,
          text: { type: "plain_text", text: b.label },
          ...(b.style !== "default" && { style: b.style }),
        })),
        // A url button still sends a block_action when clicked; its action_id is no action of ours.
        ...links.map((l, i) => ({ type: "button", action_id: `link-${i}`, url: l.url, text: plain(l.label, 75) })),
      ],
    });
  }
  const fallback = card.footer ? `${card.title}: ${card.footer}` : card.title;
  return { text: escapeSlack(fallback), blocks };
}
