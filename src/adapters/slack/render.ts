import type { Card } from "../../bot/chat/types";

/** A neutral card as Block Kit. `text` is the notification fallback Slack requires. */
export function cardBlocks(card: Card): { text: string; blocks: object[] } {
  const blocks: object[] = [{ type: "header", text: { type: "plain_text", text: card.title.slice(0, 150) } }];
  if (card.lines.length) blocks.push({ type: "section", text: { type: "mrkdwn", text: card.lines.join("\n") } });
  if (card.fields.length) {
    blocks.push({
      type: "section",
      fields: card.fields.map((f) => ({ type: "mrkdwn", text: `*${f.label}*\n${f.value}` })),
    });
  }
  if (card.buttons.length) {
    blocks.push({
      type: "actions",
      block_id: "holdfast-actions",
      elements: card.buttons.map((b) => ({
        type: "button",
        action_id: b.action,
        value: b.token,
        text: { type: "plain_text", text: b.label },
        ...(b.style !== "default" && { style: b.style }),
      })),
    });
  }
  if (card.footer) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: card.footer }] });
  return { text: card.footer ? `${card.title}: ${card.footer}` : card.title, blocks };
}
