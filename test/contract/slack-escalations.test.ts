import { describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import type { RecordedCall } from "../fakes/recording-http";
import { blockActionsBody, postSigned, type SlackFake, slackArgs } from "../fakes/slack-fake";
import { chatMonitor, createRunWithCards, decisionRows, pingRows } from "../support/approval-cards";
import type { ChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { SLACK_SECRET, SLACK_TEAM, useSlackChat } from "../support/platform-chats";

// Escalation pings on real Bolt against the Slack fake: bob (U0BOB), ops-agent's secondary manager, gets
// the ping in his DM; Take over makes him a reviewer, and his Approve on the card that follows decides.
describe.each(PROVIDERS)("on %s", (provider) => {
  const SECRET = SLACK_SECRET;
  const TEAM = SLACK_TEAM;
  const BOB = "U0BOB";
  const BOB_DM = "DU0BOB";

  let fake: SlackFake;
  let h: ChatHarness;
  let seq = 0;

  useSlackChat(provider, (started) => ({ fake, h } = started));

  type Element = { type: string; action_id: string; value?: string; url?: string; text: { text: string } };
  type Blocks = Array<{ type: string; text?: { text: string }; elements?: Element[] }>;
  const blocksOf = (call: RecordedCall) => JSON.parse(String(slackArgs(call).blocks)) as Blocks;
  const postsTo = (channel: string) => fake.callsTo("chat.postMessage").filter((c) => slackArgs(c).channel === channel);

  async function click(action: string, value: string, ts: string) {
    const id = `e${++seq}`;
    const payload = blockActionsBody({
      action_id: action,
      value,
      user: { id: BOB, team_id: TEAM },
      team: { id: TEAM },
      message: { ts, channel: BOB_DM },
      trigger_id: `esc-trigger-${seq}`,
      response_url: fake.responseUrl(id),
    });
    const ack = await postSigned(`${h.url}/slack/events`, payload, SECRET);
    await ack.text();
    const note = await fake.waitFor((c) => c.path === `/response/${id}`);
    return { status: ack.status, note: (note.json as { text: string }).text };
  }

  test("the ping card; Take over sends bob the approval card, whose Approve decides; the ping is then settled", async () => {
    const run = await createRunWithCards(h, "slack-esc", { deadline: new Date(Date.now() + 24 * 3_600_000) });
    const monitor = chatMonitor(h);
    await monitor.tick();
    await monitor.tick();
    const pings = postsTo(BOB_DM);
    expect(pings).toHaveLength(1);
    const blocks = blocksOf(pings[0]!);
    const text = JSON.stringify(blocks);
    expect(blocks[0]!.text!.text).toBe("Escalation level 1: an approval waits");
    for (const shown of ["Run: slack-esc", "Operation: send-invoice", "Digest: sha256:", "Level: 1", "on rita"])
      expect(text).toContain(shown);
    const elements = blocks.find((b) => b.type === "actions")!.elements!;
    expect(elements.map((e) => e.text.text)).toEqual(["Acknowledge", "Take over", "Open"]);
    expect(elements[2]).toMatchObject({ type: "button", url: "https://holdfast.example.test/approvals#slack-esc" });
    const [ping] = await pingRows(h, run.id);
    expect(ping).toMatchObject({ platform: "slack", channelId: BOB_DM, shows: "open" });

    const taken = await click("escalation.takeover", elements[1]!.value!, ping!.messageId!);
    expect(taken.status).toBe(200);
    expect(taken.note).toBe("You are now a reviewer of run slack-esc (version 1); its approval card is on its way.");
    await h.chat.cards.sync(runKey("acme", run.id));
    const card = postsTo(BOB_DM).find((c) => JSON.stringify(blocksOf(c)).includes("Approve"))!;
    const approve = blocksOf(card)
      .find((b) => b.type === "actions")!
      .elements!.find((e) => e.action_id === "run.approve")!;
    const approved = await click("run.approve", approve.value!, String(slackArgs(card).ts ?? "1700000000.000009"));
    expect(approved.note).toMatch(/\(approved\)$/);
    expect(await decisionRows(h, run.id)).toMatchObject([{ actorId: "acme:bob", result: "approved" }]);

    await monitor.tick();
    const update = fake.callsTo("chat.update").find((c) => slackArgs(c).ts === ping!.messageId)!;
    expect(String(slackArgs(update).blocks)).toMatch(/Resolved: approved by bob at/);
    expect(String(slackArgs(update).blocks)).not.toContain('"actions"');
  });

  test("Acknowledge answers the clicker and records who", async () => {
    await createRunWithCards(h, "slack-esc-ack", { deadline: new Date(Date.now() + 24 * 3_600_000) });
    await chatMonitor(h).tick();
    const ping = postsTo(BOB_DM).find((c) => JSON.stringify(blocksOf(c)).includes("slack-esc-ack"))!;
    const ack = blocksOf(ping).find((b) => b.type === "actions")!.elements![0]!;
    const answer = await click("escalation.ack", ack.value!, String(slackArgs(ping).ts ?? "1"));
    expect(answer.note).toBe("Acknowledged at level 1: no more reminders at this level.");
    const row = await h.ctx.store.db.escalation.findFirstOrThrow({
      where: { subject: runKey("acme", "slack-esc-ack") },
    });
    expect(row).toMatchObject({ state: "acknowledged", acknowledgedBy: "acme:bob" });
  });
});
