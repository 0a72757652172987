import { describe, expect, it } from "vitest";
import { cardMessage as discordMessage } from "../../src/adapters/discord/render";
import { cardBlocks } from "../../src/adapters/slack/render";
import { cardMessage as telegramMessage } from "../../src/adapters/telegram/render";
import { pingCard, settledPingCard } from "../../src/bot/surfaces/chat/ping-card";

// Agent-supplied text (an operation, a pause reason) is data on a ping as on an approval card.
const hostile = "<!channel> *bold* [x](https://evil.example) <b>tag</b> @everyone";
const card = pingCard(
  "approval",
  {
    what: `Approval of ${hostile} (run r1, version 1)`,
    onWhom: ["rita"],
    fields: [{ label: "Operation", value: hostile }],
    openPath: "/v1/runs/r1",
  },
  { level: 1, repeat: 0, since: new Date("2026-12-03T08:00:00Z") },
  { ack: "tokenAAAAAAAAAAA", takeOver: "tokenBBBBBBBBBBB" },
  "https://holdfast.example.test/",
);

describe("the ping card on each platform", () => {
  it("Slack: agent text is plain_text with its control characters escaped; Open is a url button", () => {
    const { blocks } = cardBlocks(card);
    const text = JSON.stringify(blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain('"url":"https://holdfast.example.test/v1/runs/r1"');
  });

  it("Discord: markdown and mentions escaped, no mentions allowed; Open is a link button", () => {
    const message = discordMessage(card);
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.embeds[0]!.description).toContain("\\*bold\\*");
    expect(message.embeds[0]!.description).toContain("\\[x]"); // a masked link no more
    expect(message.embeds[0]!.description).toContain("\\<!channel>");
    expect(message.components[0]!.components.at(-1)).toMatchObject({
      style: 5,
      url: "https://holdfast.example.test/v1/runs/r1",
    });
  });

  it("Telegram: HTML escaped; Open is a url inline button", () => {
    const message = telegramMessage(card);
    expect(message.text).not.toContain("<b>tag</b>");
    expect(message.text).toContain("&lt;b&gt;tag&lt;/b&gt;");
    expect(message.reply_markup.inline_keyboard[0]!.at(-1)).toEqual({
      text: "Open",
      url: "https://holdfast.example.test/v1/runs/r1",
    });
  });

  it("settled: the outcome as footer, no buttons and no links on any platform", () => {
    const settled = settledPingCard(card, "Resolved: approved by rita at 2026-12-03 09:00 UTC");
    expect(cardBlocks(settled).blocks.some((b) => (b as { type: string }).type === "actions")).toBe(false);
    expect(discordMessage(settled).components).toEqual([]);
    expect(telegramMessage(settled).reply_markup.inline_keyboard).toEqual([]);
  });
});

describe("a link Telegram would refuse as a button", () => {
  it("a loopback Open link (the default public URL) is shown as text instead", () => {
    const local = { ...card, links: [{ label: "Open", url: "http://127.0.0.1:3000/v1/runs/r1" }] };
    const message = telegramMessage(local);
    expect(message.reply_markup.inline_keyboard[0]!.map((k) => k.text)).toEqual(["Acknowledge", "Take over"]);
    expect(message.text).toContain("Open: http://127.0.0.1:3000/v1/runs/r1");
  });
});
