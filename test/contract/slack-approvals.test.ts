import { describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import { type RecordedCall, startRecordingServer } from "../fakes/recording-http";
import { blockActionsBody, postSigned, type SlackFake, slackArgs } from "../fakes/slack-fake";
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
import { SLACK_SECRET, SLACK_TEAM, useSlackChat } from "../support/platform-chats";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // Approval cards on real Bolt against the Slack fake: rita (U0RITA) reviews ops-agent's runs by DM.

  const SECRET = SLACK_SECRET;
  const TEAM = SLACK_TEAM;
  const RITA = "U0RITA";
  const RITA_DM = "DU0RITA"; // the fake's conversations.open answer for rita

  let fake: SlackFake;
  let h: ChatHarness;
  let seq = 0;

  useSlackChat(provider, (started) => ({ fake, h } = started));

  type Blocks = Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>;
  const blocksOf = (call: RecordedCall) => JSON.parse(String(slackArgs(call).blocks)) as Blocks;
  const postsTo = (channel: string) => fake.callsTo("chat.postMessage").filter((c) => slackArgs(c).channel === channel);

  /** The card posted for a run's version, and its Approve/Deny values, read from what Slack received. */
  function cardFor(runId: string, version: number) {
    const post = postsTo(RITA_DM).find((c) => {
      const text = JSON.stringify(blocksOf(c));
      return text.includes(`Run: ${runId}"`) && text.includes(`Version: ${version}"`);
    });
    if (!post) throw new Error(`no card for ${runId} v${version}`);
    const buttons = blocksOf(post).find((b) => b.type === "actions")!.elements!;
    const value = (id: string) => buttons.find((b) => b.action_id === id)!.value;
    return { post, approve: value("run.approve"), deny: value("run.deny") };
  }

  /** The body of a click on a card in rita's DM, as Slack sends it. */
  const clickBody = (action: string, value: string, responseUrl: string, user = RITA, triggerId?: string) =>
    blockActionsBody({
      action_id: action,
      value,
      user: { id: user, team_id: TEAM },
      team: { id: TEAM },
      message: { ts: "1700000000.000001", channel: RITA_DM },
      ...(triggerId && { trigger_id: triggerId }),
      response_url: responseUrl,
    });

  /** A signed click; returns the HTTP status and, once it arrives, the ephemeral note. */
  async function click(action: string, value: string, user = RITA, body?: string) {
    const id = `n${++seq}`;
    const payload = body ?? clickBody(action, value, fake.responseUrl(id), user, `trigger-${seq}`);
    const ack = await postSigned(`${h.url}/slack/events`, payload, SECRET);
    await ack.text();
    const url = new URLSearchParams(payload).get("payload")!;
    const responseId = (JSON.parse(url) as { response_url: string }).response_url.split("/").at(-1);
    const note = await fake.waitFor((c) => c.path === `/response/${responseId}` && c !== lastNote);
    lastNote = note;
    return { status: ack.status, note: (note.json as { text: string }).text, body: payload };
  }
  let lastNote: RecordedCall | undefined;

  describe("slack approval cards", () => {
    test("a card goes to rita's DM; Approve records the decision, one outbox row, and the card is edited", async () => {
      const run = await createRunWithCards(h, "slack-approve");
      const card = cardFor("slack-approve", 1);
      const text = JSON.stringify(blocksOf(card.post));
      for (const shown of ["send-invoice", "http://127.0.0.1:4000/actions", "quote.pdf", "left)", "Approve", "Deny"])
        expect(text).toContain(shown);
      expect(text).toContain(run.digest.slice(7, 19)); // the short digest
      expect(text).not.toContain(run.digest.slice(7)); // the full one lives in the binding, not on the card
      expect(await cardRows(h, run.id)).toMatchObject([{ platform: "slack", channelId: RITA_DM, shows: "open" }]);

      const approved = await click("run.approve", card.approve);
      expect(approved.status).toBe(200);
      expect(approved.note).toMatch(/^Approved send-invoice \(version 1\).*\(approved\)$/);
      await h.chat.cards.sync(runKey("acme", run.id));
      expect(await decisionRows(h, run.id)).toMatchObject([{ actorId: "acme:rita", result: "approved", version: 1 }]);
      expect((await decisionRows(h, run.id))[0]!.eventId).toMatch(/^slack:trigger-\d+:\d+\.000001$/);
      expect(await outboxRows(h, run.id)).toHaveLength(1);
      const update = fake.callsTo("chat.update").at(-1)!;
      expect(slackArgs(update)).toMatchObject({ channel: RITA_DM, ts: (await cardRows(h, run.id))[0]!.messageId });
      expect(String(slackArgs(update).blocks)).toMatch(/Approved by rita at/);
      expect(String(slackArgs(update).blocks)).not.toContain('"actions"');

      // The same click re-sent (same trigger and action ts) is a duplicate and changes nothing.
      const before = await runSnapshot(h, run.id);
      const again = await click("", "", RITA, approved.body.replace(/response%2Fn\d+/, `response%2Fn${++seq}`));
      expect(again.note).toContain("(duplicate)");
      expect(await runSnapshot(h, run.id)).toEqual(before);
    });

    test("a click on a superseded card is stale and changes nothing", async () => {
      const first = await createRunWithCards(h, "slack-stale");
      const old = cardFor("slack-stale", 1);
      const second = await saveChangedPacket(h, "slack-stale", 250);
      const superseded = String(slackArgs(fake.callsTo("chat.update").at(-1)!).blocks);
      expect(superseded).toContain("Superseded by version 2");
      // The old card keeps showing what it was about: version 1's digest, not the new one.
      expect(superseded).toContain(first.digest.slice(0, 19));
      expect(superseded).not.toContain(second.digest.slice(0, 19));
      const before = await runSnapshot(h, "slack-stale");
      expect(before.cards).toEqual(["superseded", "open"]);

      const stale = await click("run.approve", old.approve);
      expect(stale.note).toBe(
        "This card is for version 1; the packet is now version 2. Decide on the newest card. (stale)",
      );
      expect(await runSnapshot(h, "slack-stale")).toEqual(before);
    });

    test("a non-reviewer's click is refused and changes nothing", async () => {
      await createRunWithCards(h, "slack-mia");
      const card = cardFor("slack-mia", 1);
      const before = await runSnapshot(h, "slack-mia");
      const refused = await click("run.deny", card.deny, "U0MIA");
      expect(refused.note).toContain("not an assigned reviewer");
      expect(refused.note).toContain("(rejected)");
      expect(await runSnapshot(h, "slack-mia")).toEqual(before);
    });

    test("a click with a forged signature gets 401 and changes nothing", async () => {
      await createRunWithCards(h, "slack-forged");
      const card = cardFor("slack-forged", 1);
      const before = await runSnapshot(h, "slack-forged");
      const body = clickBody("run.approve", card.approve, fake.responseUrl("forged"));
      const forged = await postSigned(`${h.url}/slack/events`, body, "not-the-secret");
      expect(forged.status).toBe(401);
      await h.chat.cards.sync("slack-forged");
      expect(await runSnapshot(h, "slack-forged")).toEqual(before);
    });

    test("a click whose response_url is not Slack's is decided, and nothing is sent to that address", async () => {
      const elsewhere = await startRecordingServer();
      try {
        const run = await createRunWithCards(h, "slack-elsewhere");
        const card = cardFor("slack-elsewhere", 1);
        const body = clickBody("run.approve", card.approve, `${elsewhere.url}/response/x`, RITA, "trigger-elsewhere");
        const ack = await postSigned(`${h.url}/slack/events`, body, SECRET);
        expect(ack.status).toBe(200);
        await h.chat.cards.sync(runKey("acme", run.id));
        await expect.poll(() => decisionRows(h, run.id)).toMatchObject([{ result: "approved" }]);
        await new Promise((r) => setTimeout(r, 200)); // where a note would have gone by now
        expect(elsewhere.calls).toEqual([]);
      } finally {
        await elsewhere.close();
      }
    });

    test("a claim left by a crash between claim and post is given back, and the card is posted", async () => {
      const run = await createRunWithCards(h, "slack-crashed");
      const db = h.ctx.store.db;
      // As if the process died after claiming version 1's card and before posting it.
      await db.chatCard.deleteMany({ where: { runId: runKey("acme", run.id) } });
      const claim = { runId: runKey("acme", run.id), version: 1, platform: "slack", channelId: RITA_DM };
      await db.chatCard.create({ data: { ...claim, messageId: null, createdAt: new Date(Date.now() - 120_000) } });
      const posts = postsTo(RITA_DM).length;
      await h.chat.cards.sync(runKey("acme", run.id));
      expect(postsTo(RITA_DM)).toHaveLength(posts + 1);
      expect(await cardRows(h, run.id)).toMatchObject([{ ...claim, shows: "open", messageId: expect.any(String) }]);
    });
  });
});
