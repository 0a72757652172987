import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { runKey } from "../../src/policy/ids";
import { rememberChatChannel } from "../../src/store/chat/buttons";
import type { RecordedCall } from "../fakes/recording-http";
import { slackArgs } from "../fakes/slack-fake";
import { PROVIDERS } from "../support/databases";
import { KEYS } from "../support/harness";
import { AGENT_KEYS, DESTINATION, type Doors, startDoors } from "./doors-harness";

// A packet written to draw on the card a reviewer decides on: a fake outcome, a ping, a link whose text is
// one URL and whose target another, and markup for each platform.
const FORGED = {
  note: "*Approved by rita at 2026-12-01 10:00 UTC*",
  ping: "<!channel> <!here> <@U0ADA>",
  link: "<https://evil.example|https://billing.example>",
  markdown: "**Approved by rita** [https://billing.example](https://evil.example) @everyone <@800000000000000001>",
  html: '<b>Approved by rita</b> <a href="https://evil.example">https://billing.example</a> &amp;',
};

type Block = { type: string; block_id?: string; text?: { type: string; text: string }; fields?: Block["text"][] };

describe.each(PROVIDERS)("%s: agent text on the cards is data", (provider) => {
  let d: Doors;
  beforeAll(async () => {
    d = await startDoors(provider);
    await d.discord.ready;
  });
  afterAll(async () => d?.close());
  beforeEach(() => {
    for (const fake of [d.slack, d.discord, d.telegram]) fake.calls.length = 0;
  });

  const createAndDecide = async (id: string) => {
    const body = JSON.stringify({
      id,
      agent: "ops-agent",
      operation: "send-invoice",
      destination: DESTINATION,
      packet: FORGED,
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const created = await d.api("POST", "/v1/runs", AGENT_KEYS.ops, body);
    expect(created.status).toBe(201);
    const run = JSON.parse(created.body) as { version: number; digest: string };
    await d.chat.cards.sync(runKey("acme", id));
    const decision = JSON.stringify({
      eventId: `${id}-e`,
      action: "approve",
      version: run.version,
      digest: run.digest,
    });
    expect((await d.api("POST", `/v1/runs/${id}/decisions`, KEYS.rita, decision)).status).toBe(200);
    await d.chat.cards.sync(runKey("acme", id));
  };

  test("Slack: packet text is plain_text (no mrkdwn, no mentions, no links); the outcome has a block of its own", async () => {
    await createAndDecide("esc-slack");
    const calls = [...d.slack.callsTo("chat.postMessage"), ...d.slack.callsTo("chat.update")];
    expect(calls.length).toBe(2);
    for (const call of calls) {
      const blocks = JSON.parse(String(slackArgs(call).blocks)) as Block[];
      const texts = blocks.flatMap((b) => [b.text, ...(b.fields ?? [])]).filter((t) => t !== undefined);
      // The only mrkdwn on the card is the outcome block, and only once the card is settled.
      const mrkdwn = blocks.filter((b) => b.text?.type === "mrkdwn" || b.fields?.some((f) => f?.type === "mrkdwn"));
      expect(mrkdwn.map((b) => b.block_id)).toEqual(call.path.endsWith("update") ? ["holdfast-outcome"] : []);
      const all = JSON.stringify(texts);
      expect(all).not.toMatch(/<!channel>|<!here>|<@U0ADA>|<https:/);
      expect(all).toContain("&lt;!channel&gt;");
      expect(String(slackArgs(call).text)).not.toContain("<");
    }
    const settled = JSON.parse(String(slackArgs(d.slack.callsTo("chat.update")[0]!).blocks)) as Block[];
    expect(settled.find((b) => b.block_id === "holdfast-outcome")!.text!.text).toMatch(/^\*Approved by rita at .*\*$/);
  });

  test("Discord: markdown and mentions escaped, allowed_mentions empty; the outcome only in the footer", async () => {
    await createAndDecide("esc-discord");
    const calls = d.discord.calls.filter((c) => c.path.includes("/channels/") && c.path.includes("/messages"));
    expect(calls.map((c) => c.method)).toEqual(["POST", "PATCH"]);
    for (const call of calls) {
      const body = call.json as {
        allowed_mentions: { parse: unknown[] };
        embeds: Array<{ description: string; footer?: { text: string } }>;
      };
      expect(body.allowed_mentions).toEqual({ parse: [] });
      const description = body.embeds[0]!.description;
      expect(description).toContain("\\*\\*Approved by rita\\*\\*");
      expect(description).toContain("\\[https://billing.example](");
      expect(description).toContain("\\<@800000000000000001>");
      expect(description).not.toMatch(/(^|[^\\])\*\*Approved/);
    }
    const settled = calls[1]!.json as { embeds: Array<{ footer: { text: string } }> };
    expect(settled.embeds[0]!.footer.text).toMatch(/^Approved by rita at /);
  });

  test("Telegram: HTML parse mode with the packet escaped; only our title and outcome are bold", async () => {
    await createAndDecide("esc-telegram");
    const sent = d.telegram
      .callsTo("sendMessage")
      .find((c) => String((c.json as { text: string }).text).includes("esc-telegram"))!;
    const edit = d.telegram.callsTo("editMessageText").at(-1)!;
    for (const call of [sent, edit]) {
      const { text, parse_mode } = call.json as { text: string; parse_mode: string };
      expect(parse_mode).toBe("HTML");
      expect(text).toContain("&lt;b&gt;Approved by rita&lt;/b&gt;");
      expect(text).toContain("&lt;a href=");
      expect(text).toContain("&amp;amp;");
      expect(text).not.toMatch(/<a /);
    }
    const bold = (call: RecordedCall) => [...String((call.json as { text: string }).text).matchAll(/<b>(.*?)<\/b>/g)];
    expect(bold(sent).map((m) => m[1])).toEqual(["Approve send-invoice for ops-agent?"]);
    expect(bold(edit).map((m) => m[1])).toEqual([
      "send-invoice for ops-agent",
      expect.stringMatching(/^Approved by rita at /),
    ]);
  });

  test("a bidi control in a packet is shown as a marker on each platform's card, open and settled", async () => {
    const body = JSON.stringify({
      id: "bidi-cards",
      agent: "ops-agent",
      operation: "pay-invoice",
      destination: DESTINATION,
      packet: { amount: "\u202e00001 EUR" },
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const created = await d.api("POST", "/v1/runs", AGENT_KEYS.ops, body);
    expect(created.status).toBe(201);
    const run = JSON.parse(created.body) as { version: number; digest: string };
    await d.chat.cards.sync(runKey("acme", "bidi-cards"));
    const decision = JSON.stringify({ eventId: "bidi-e", action: "approve", version: run.version, digest: run.digest });
    expect((await d.api("POST", "/v1/runs/bidi-cards/decisions", KEYS.rita, decision)).status).toBe(200);
    await d.chat.cards.sync(runKey("acme", "bidi-cards"));
    const slack = [...d.slack.callsTo("chat.postMessage"), ...d.slack.callsTo("chat.update")].map((c) =>
      String(slackArgs(c).blocks),
    );
    const discord = d.discord.calls
      .filter((c) => c.path.includes("/channels/") && c.path.includes("/messages"))
      .map((c) => (c.json as { embeds: Array<{ description: string }> }).embeds[0]!.description);
    const telegram = [...d.telegram.callsTo("sendMessage"), ...d.telegram.callsTo("editMessageText")]
      .map((c) => String((c.json as { text: string }).text))
      .filter((text) => text.includes("pay-invoice"));
    for (const [platform, shown] of Object.entries({ slack, discord, telegram })) {
      expect(shown.length, platform).toBe(2);
      for (const text of shown) {
        expect(text, platform).toContain("⟨U+202E⟩00001 EUR");
        expect(text, platform).not.toContain("\u202e");
        expect(JSON.stringify(text), platform).not.toContain("\\u202e");
      }
    }
  });

  test("an agent's message with a bidi control shows the marker on every platform", async () => {
    const agentId = "acme:ops-agent";
    await rememberChatChannel(d.db.store.db, agentId, "slack", "C0BIDI", new Date());
    await rememberChatChannel(d.db.store.db, agentId, "discord", "1100000000000000901", new Date());
    await rememberChatChannel(d.db.store.db, agentId, "telegram", "424242", new Date());
    const say = (platform: string, channel: string) =>
      d.api(
        "POST",
        "/v1/agents/ops-agent/messages",
        AGENT_KEYS.ops,
        JSON.stringify({ platform, channel, text: "total \u202e00001" }),
      );
    expect((await say("slack", "C0BIDI")).status).toBe(201);
    expect(String(slackArgs(d.slack.callsTo("chat.postMessage").at(-1)!).text)).toBe("total ⟨U+202E⟩00001");
    expect((await say("discord", "1100000000000000901")).status).toBe(201);
    const posted = d.discord.calls.filter((c) => c.path === "/api/v10/channels/1100000000000000901/messages").at(-1)!;
    expect((posted.json as { content: string }).content).toBe("total ⟨U+202E⟩00001");
    expect((await say("telegram", "424242")).status).toBe(201);
    expect((d.telegram.callsTo("sendMessage").at(-1)!.json as { text: string }).text).toBe("total ⟨U+202E⟩00001");
  });

  test("the agent's own messages cannot ping a channel on Slack or Discord", async () => {
    const agentId = "acme:ops-agent";
    await rememberChatChannel(d.db.store.db, agentId, "slack", "C0ESC", new Date());
    await rememberChatChannel(d.db.store.db, agentId, "discord", "1100000000000000900", new Date());
    const say = (platform: string, channel: string) =>
      d.api(
        "POST",
        "/v1/agents/ops-agent/messages",
        AGENT_KEYS.ops,
        JSON.stringify({ platform, channel, text: "<!channel> @everyone hi" }),
      );
    expect((await say("slack", "C0ESC")).status).toBe(201);
    expect(String(slackArgs(d.slack.callsTo("chat.postMessage").at(-1)!).text)).toBe("&lt;!channel&gt; @everyone hi");
    expect((await say("discord", "1100000000000000900")).status).toBe(201);
    const posted = d.discord.calls.filter((c) => c.path === "/api/v10/channels/1100000000000000900/messages").at(-1)!;
    expect(posted.json).toMatchObject({ content: "<!channel> @everyone hi", allowed_mentions: { parse: [] } });
  });
});
