import { describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import { buttonInteraction, type DiscordFake, type DiscordKeyPair, discordMessage } from "../fakes/discord-fake";
import type { RecordedCall } from "../fakes/recording-http";
import { cardRows, chatMonitor, createRunWithCards, decisionRows, pingRows } from "../support/approval-cards";
import type { ChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { DISCORD_APP, useDiscordChat } from "../support/platform-chats";

// Escalation pings on real discord.js (gateway + REST fake): bob gets the ping in his DM channel, with
// Acknowledge, Take over and an Open link button (style 5).
describe.each(PROVIDERS)("on %s", (provider) => {
  const APP = DISCORD_APP;
  const BOB = "800000000000000005";

  let fake: DiscordFake;
  let keys: DiscordKeyPair;
  let h: ChatHarness;
  let seq = 0;

  useDiscordChat(provider, (started) => ({ fake, keys, h } = started));

  type Button = { type: number; style: number; label: string; custom_id?: string; url?: string };
  type Posted = {
    embeds: Array<{
      title: string;
      description: string;
      fields: Array<{ name: string; value: string }>;
      footer?: { text: string };
    }>;
    components: Array<{ components: Button[] }>;
  };
  const seen = new Set<RecordedCall>();

  async function click(customId: string, message: { channelId: string; messageId: string }) {
    const id = String(9_700_000 + ++seq);
    fake.dispatch(
      "INTERACTION_CREATE",
      buttonInteraction({
        id,
        token: `tok-${id}-${++seq}`,
        userId: BOB,
        channelId: message.channelId,
        customId,
        message: discordMessage({ id: message.messageId, channelId: message.channelId }),
      }),
    );
    const note = await fake.waitFor(
      (c: RecordedCall) => c.path.startsWith(`/api/v10/webhooks/${APP}/tok-${id}-`) && !seen.has(c),
    );
    seen.add(note);
    return (note.json as { content: string }).content;
  }

  test("the ping card; Take over sends bob the approval card, whose Approve decides; the ping is then settled", async () => {
    const run = await createRunWithCards(h, "dc-esc", { deadline: new Date(Date.now() + 24 * 3_600_000) });
    const monitor = chatMonitor(h);
    await monitor.tick();
    await monitor.tick();
    const pings = await pingRows(h, run.id);
    expect(pings).toHaveLength(1);
    const ref = { channelId: pings[0]!.channelId, messageId: pings[0]!.messageId! };
    const posts = fake.calls.filter(
      (c) => c.method === "POST" && c.path === `/api/v10/channels/${ref.channelId}/messages`,
    );
    expect(posts).toHaveLength(1);
    const body = posts[0]!.json as Posted;
    expect(body.embeds[0]!.title).toBe("Escalation level 1: an approval waits");
    expect(body.embeds[0]!.fields).toEqual(
      expect.arrayContaining([
        { name: "Run", value: "dc-esc", inline: true },
        { name: "Operation", value: "send-invoice", inline: true },
        { name: "Level", value: "1", inline: true },
      ]),
    );
    const [ack, takeOver, open] = body.components[0]!.components;
    expect([ack!.label, takeOver!.label, open!.label]).toEqual(["Acknowledge", "Take over", "Open"]);
    expect(open).toEqual({ type: 2, style: 5, label: "Open", url: "https://holdfast.example.test/approvals#dc-esc" });

    expect(await click(takeOver!.custom_id!, ref)).toBe(
      "You are now a reviewer of run dc-esc (version 1); its approval card is on its way.",
    );
    await h.chat.cards.sync(runKey("acme", run.id));
    const bobCard = (await cardRows(h, run.id)).find((c) => c.channelId === ref.channelId)!;
    const cardPost = fake.calls
      .filter((c) => c.method === "POST" && c.path === `/api/v10/channels/${ref.channelId}/messages`)
      .at(-1)!;
    const approve = (cardPost.json as Posted).components[0]!.components.find((b) =>
      b.custom_id?.startsWith("run.approve:"),
    )!;
    expect(await click(approve.custom_id!, { channelId: bobCard.channelId, messageId: bobCard.messageId! })).toContain(
      "(approved)",
    );
    expect(await decisionRows(h, run.id)).toMatchObject([{ actorId: "acme:bob", result: "approved" }]);

    await monitor.tick();
    const edit = await fake.waitFor(
      (c) => c.method === "PATCH" && c.path === `/api/v10/channels/${ref.channelId}/messages/${ref.messageId}`,
    );
    const edited = edit.json as Posted;
    expect(edited.embeds[0]!.footer!.text).toMatch(/^Resolved: approved by bob at/);
    expect(edited.components).toEqual([]);
  });
});
