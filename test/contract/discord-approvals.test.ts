import { describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import {
  buttonInteraction,
  type DiscordFake,
  type DiscordKeyPair,
  discordMessage,
  makeDiscordKeyPair,
} from "../fakes/discord-fake";
import type { RecordedCall } from "../fakes/recording-http";
import {
  cardRows,
  createRunWithCards,
  decisionRows,
  outboxRows,
  runSnapshot,
  saveChangedPacket,
} from "../support/approval-cards";
import type { ChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { DISCORD_APP, useDiscordChat } from "../support/platform-chats";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // Approval cards on real discord.js (gateway + REST fake): rita's cards arrive in her DM channel.

  const APP = DISCORD_APP;
  const RITA = "800000000000000004";
  const MIA = "800000000000000006";

  let fake: DiscordFake;
  let keys: DiscordKeyPair;
  let h: ChatHarness;
  let seq = 0;

  useDiscordChat(provider, (started) => ({ fake, keys, h } = started));

  type Posted = {
    embeds: Array<{ fields: Array<{ name: string; value: string }> }>;
    components: Array<{ components: Array<{ custom_id: string }> }>;
  };

  /** The card of (run, version) as Discord received it, with its Approve/Deny custom ids and the message. */
  async function cardFor(runId: string, version: number) {
    const row = (await cardRows(h, runId)).find((c) => c.version === version && c.platform === "discord")!;
    const post = fake.calls.find((c) => {
      const body = c.json as Posted | undefined;
      const fields = body?.embeds?.[0]?.fields ?? [];
      return (
        c.method === "POST" &&
        fields.some((f) => f.name === "Run" && f.value === runId) &&
        fields.some((f) => f.name === "Version" && f.value === String(version))
      );
    })!;
    const [approve, deny] = (post.json as Posted).components[0]!.components.map((b) => b.custom_id);
    return { row, approve: approve!, deny: deny! };
  }

  /** A button interaction over the gateway; resolves with the ephemeral follow-up note. */
  async function click(
    customId: string,
    user: string,
    message: { channelId: string; messageId: string },
    id = String(9_600_000 + ++seq),
  ) {
    fake.dispatch(
      "INTERACTION_CREATE",
      buttonInteraction({
        id,
        token: `tok-${id}-${++seq}`,
        userId: user,
        channelId: message.channelId,
        customId,
        message: discordMessage({ id: message.messageId, channelId: message.channelId }),
      }),
    );
    const deferred = await fake.waitFor((c) => c.path.startsWith(`/api/v10/interactions/${id}/`));
    expect((deferred.json as { type: number }).type).toBe(6); // DEFERRED_UPDATE_MESSAGE: acked before deciding
    const note = await fake.waitFor(
      (c: RecordedCall) => c.path.startsWith(`/api/v10/webhooks/${APP}/tok-${id}-`) && !seen.has(c),
    );
    seen.add(note);
    return { id, note: note.json as { content: string; flags: number } };
  }
  const seen = new Set<RecordedCall>();

  describe("discord approval cards", () => {
    test("Approve in rita's DM records the decision, one outbox row, edits the card; a re-sent click is a duplicate", async () => {
      const run = await createRunWithCards(h, "dc-approve");
      const card = await cardFor(run.id, 1);
      const ref = { channelId: card.row.channelId, messageId: card.row.messageId! };
      const first = await click(card.approve, RITA, ref);
      expect(first.note).toMatchObject({ content: expect.stringContaining("(approved)"), flags: 64 });
      await h.chat.cards.sync(runKey("acme", run.id));
      expect(await decisionRows(h, run.id)).toMatchObject([
        { eventId: `discord:${first.id}`, result: "approved", actorId: "acme:rita" },
      ]);
      expect(await outboxRows(h, run.id)).toHaveLength(1);
      const edit = await fake.waitFor(
        (c) => c.method === "PATCH" && c.path === `/api/v10/channels/${ref.channelId}/messages/${ref.messageId}`,
      );
      const edited = edit.json as { embeds: Array<{ footer: { text: string } }>; components: unknown[] };
      expect(edited.embeds[0]!.footer.text).toMatch(/^Approved by rita at/);
      expect(edited.components).toEqual([]);

      const before = await runSnapshot(h, run.id);
      const again = await click(card.approve, RITA, ref, first.id);
      expect(again.note.content).toContain("(duplicate)");
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });

    test("a superseded card's click is stale; a non-reviewer's is refused; neither changes anything", async () => {
      const run = await createRunWithCards(h, "dc-stale");
      const old = await cardFor(run.id, 1);
      await saveChangedPacket(h, run.id, 700);
      const before = await runSnapshot(h, run.id);
      const ref = { channelId: old.row.channelId, messageId: old.row.messageId! };
      expect((await click(old.approve, RITA, ref)).note.content).toBe(
        "This card is for version 1; the packet is now version 2. Decide on the newest card. (stale)",
      );
      const fresh = await cardFor(run.id, 2);
      const refused = await click(fresh.deny, MIA, { channelId: fresh.row.channelId, messageId: fresh.row.messageId! });
      expect(refused.note.content).toContain("(rejected)");
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });

    test("a click with a forged Ed25519 signature on the interactions endpoint gets 401 and changes nothing", async () => {
      const run = await createRunWithCards(h, "dc-forged");
      const card = await cardFor(run.id, 1);
      const before = await runSnapshot(h, run.id);
      const interaction = buttonInteraction({
        id: "9690001",
        token: "tok-9690001",
        userId: RITA,
        customId: card.approve,
      });
      const body = JSON.stringify(interaction);
      const forged = await fetch(`${h.url}/discord/interactions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...makeDiscordKeyPair().headers(body) },
        body,
      });
      expect(forged.status).toBe(401);
      await h.chat.cards.sync(runKey("acme", run.id));
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });
  });
});
