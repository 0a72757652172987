import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createRunForAgent } from "../../src/bot/app/approvals/create-run";
import { decideRun } from "../../src/bot/app/approvals/decide-run";
import { expireRun } from "../../src/bot/app/approvals/expire-run";
import { HoldfastEvents } from "../../src/bot/app/events";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { runKey } from "../../src/policy/ids";
import { findAgent, findUserByIdentity, syncDirectory } from "../../src/store/directory/directory";
import { buttonInteraction, type DiscordFake, discordMessage, startDiscordFake } from "../fakes/discord-fake";
import type { RecordedCall } from "../fakes/recording-http";
import { blockActionsBody, postSigned, type SlackFake, slackArgs, startSlackFake } from "../fakes/slack-fake";
import { callbackQueryUpdate, startTelegramFake, type TelegramFake } from "../fakes/telegram-fake";
import {
  cardRows,
  createRunWithCards,
  decideThroughApi,
  decisionRows,
  outboxRows,
  saveChangedPacket,
} from "../support/approval-cards";
import { type ChatHarness, startChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { EXAMPLE_CONFIG } from "../support/harness";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // All three real libraries in one bot: a card per platform for rita, and every decision, wherever it came
  // from, edits the cards on all three.

  const SLACK_SECRET = "slack-signing-secret-for-tests";
  const TELEGRAM_TOKEN = "123456:TEST-TOKEN";
  const TELEGRAM_SECRET = "telegram-webhook-secret";
  const DISCORD_APP = "1100000000000000001";
  const RITA = { slack: "U0RITA", discord: "800000000000000004", telegram: 7000004 } as const;

  let slack: SlackFake;
  let discord: DiscordFake;
  let telegram: TelegramFake;
  let h: ChatHarness;

  beforeAll(async () => {
    [slack, discord, telegram] = await Promise.all([
      startSlackFake({ teamId: "T0ACME" }),
      startDiscordFake({ applicationId: DISCORD_APP }),
      startTelegramFake(TELEGRAM_TOKEN),
    ]);
    h = await startChatHarness(provider, {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: slack.apiUrl,
      DISCORD_TOKEN: "discord-bot-token",
      DISCORD_APPLICATION_ID: DISCORD_APP,
      DISCORD_API_URL: discord.apiUrl,
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
      TELEGRAM_API_ROOT: telegram.url,
    });
  });
  afterAll(async () => {
    await h.close();
    await Promise.all([slack.close(), discord.close(), telegram.close()]);
  });
  beforeEach(() => {
    for (const fake of [slack, discord, telegram]) fake.calls.length = 0;
  });

  /** The edits each platform received since the test began, as the text they show. */
  function edits() {
    const slackEdits = slack.callsTo("chat.update").map((c) => String(slackArgs(c).blocks));
    const discordEdits = discord.calls
      .filter((c) => c.method === "PATCH" && c.path.startsWith("/api/v10/channels/"))
      .map((c) => JSON.stringify(c.json));
    const telegramEdits = telegram.callsTo("editMessageText").map((c) => JSON.stringify(c.json));
    return { slack: slackEdits, discord: discordEdits, telegram: telegramEdits };
  }

  const allThree = (texts: ReturnType<typeof edits>, pattern: RegExp) =>
    expect([texts.slack, texts.discord, texts.telegram].map((list) => list.some((t) => pattern.test(t)))).toEqual([
      true,
      true,
      true,
    ]);

  const discordDm = async () =>
    (await h.ctx.store.db.chatCard.findFirstOrThrow({ where: { platform: "discord" } })).channelId;

  describe("approval cards on all three platforms at once", () => {
    test("a run's card reaches rita on Slack, Discord and Telegram; an Approve on one edits all three", async () => {
      const run = await createRunWithCards(h, "all-approve");
      const cards = await cardRows(h, run.id);
      expect(cards.map((c) => [c.platform, c.shows])).toEqual([
        ["discord", "open"],
        ["slack", "open"],
        ["telegram", "open"],
      ]);
      expect(cards.find((c) => c.platform === "slack")!.channelId).toBe("DU0RITA");
      expect(cards.find((c) => c.platform === "telegram")!.channelId).toBe(String(RITA.telegram));
      const opened = discord.calls.find((c) => c.path === "/api/v10/users/@me/channels")!;
      expect(opened.json).toEqual({ recipient_id: RITA.discord });

      // rita clicks Approve on Telegram: the callback_query id is the event id.
      const tgCard = telegram.callsTo("sendMessage").at(-1)!.json as {
        reply_markup: { inline_keyboard: Array<Array<{ callback_data: string }>> };
      };
      const approve = tgCard.reply_markup.inline_keyboard[0]![0]!.callback_data;
      const telegramCard = cards.find((c) => c.platform === "telegram")!;
      const update = callbackQueryUpdate({
        id: "cbq-all-1",
        fromId: RITA.telegram,
        chatId: RITA.telegram,
        messageId: Number(telegramCard.messageId),
        data: approve,
      });
      const answer = await fetch(`${h.url}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
        body: JSON.stringify(update),
      });
      expect(answer.status).toBe(200);
      await h.chat.cards.sync(runKey("acme", run.id));

      expect(await decisionRows(h, run.id)).toMatchObject([
        { eventId: "telegram:cbq-all-1", actorId: "acme:rita", result: "approved" },
      ]);
      expect(await outboxRows(h, run.id)).toHaveLength(1);
      const toast = telegram.callsTo("answerCallbackQuery").at(-1)!.json as { text: string };
      expect(toast.text).toContain("(approved)");
      allThree(edits(), /Approved by rita at/);
      expect((await cardRows(h, run.id)).map((c) => c.shows)).toEqual(["approved", "approved", "approved"]);
      // Discord's edit removes the buttons; Telegram's empties the keyboard.
      const discordEdit = discord.calls.find((c) => c.method === "PATCH")!.json as { components: unknown[] };
      expect(discordEdit.components).toEqual([]);
      expect(telegram.callsTo("editMessageText")[0]!.json).toMatchObject({ reply_markup: { inline_keyboard: [] } });
    });

    test("a decision through the HTTP API edits the cards on every platform", async () => {
      const run = await createRunWithCards(h, "all-api");
      const denied = await decideThroughApi(h, run.id, {
        eventId: "api-1",
        action: "deny",
        version: run.version,
        digest: run.digest,
      });
      expect(denied.json.result).toBe("denied");
      allThree(edits(), /Denied by rita at/);
      expect(await outboxRows(h, run.id)).toHaveLength(0);
    });

    test("expiry by the scheduler edits the cards on every platform", async () => {
      const run = await createRunWithCards(h, "all-expiry", { deadline: new Date(Date.now() + 60_000) });
      const later = { ...h.ctx, now: () => new Date(Date.now() + 120_000) };
      expect(await expireRun(later, runKey("acme", run.id))).toBe("expired");
      await h.chat.cards.sync(runKey("acme", run.id));
      allThree(edits(), /Expired at .*no decision before the deadline/);
    });

    test("a new packet version supersedes the cards everywhere and posts new ones", async () => {
      const run = await createRunWithCards(h, "all-superseded");
      await saveChangedPacket(h, run.id, 300);
      allThree(edits(), /Superseded by version 2/);
      const cards = await cardRows(h, run.id);
      expect(cards.map((c) => [c.version, c.shows])).toEqual([
        [1, "superseded"],
        [1, "superseded"],
        [1, "superseded"],
        [2, "open"],
        [2, "open"],
        [2, "open"],
      ]);

      // A Discord click on the old card: stale, and nothing changes.
      const oldButtons = discord.calls.find(
        (c) => c.method === "POST" && c.path === `/api/v10/channels/${cards[0]!.channelId}/messages`,
      )!.json as { components: Array<{ components: Array<{ custom_id: string }> }> };
      const customId = oldButtons.components[0]!.components[0]!.custom_id;
      discord.dispatch(
        "INTERACTION_CREATE",
        buttonInteraction({
          id: "9500001",
          token: "tok-9500001",
          userId: RITA.discord,
          channelId: await discordDm(),
          customId,
          message: discordMessage({ id: cards[0]!.messageId!, channelId: await discordDm() }),
        }),
      );
      const note = await discord.waitFor(
        (c: RecordedCall) => c.path === `/api/v10/webhooks/${DISCORD_APP}/tok-9500001`,
      );
      expect((note.json as { content: string }).content).toContain(
        "This card is for version 1; the packet is now version 2",
      );
      expect(await decisionRows(h, run.id)).toEqual([]);
    });

    test("a Slack Approve click is acked with 200, then decides and edits every card", async () => {
      const run = await createRunWithCards(h, "all-slack");
      const post = slack.callsTo("chat.postMessage").at(-1)!;
      const blocks = JSON.parse(String(slackArgs(post).blocks)) as Array<{
        type: string;
        elements?: Array<{ value: string }>;
      }>;
      const approve = blocks.find((b) => b.type === "actions")!.elements![0]!.value;
      const body = blockActionsBody({
        action_id: "run.approve",
        value: approve,
        user: { id: RITA.slack, team_id: "T0ACME" },
        team: { id: "T0ACME" },
        message: { ts: "1700000000.000001", channel: "DU0RITA" },
        response_url: slack.responseUrl("all-slack"),
      });
      const ack = await postSigned(`${h.url}/slack/events`, body, SLACK_SECRET);
      expect(ack.status).toBe(200);
      // The ack comes first; the note through response_url says the decision is recorded.
      const note = await slack.waitFor((c) => c.path === "/response/all-slack");
      expect((note.json as { text: string }).text).toContain("(approved)");
      expect((await decisionRows(h, run.id)).map((d) => d.result)).toEqual(["approved"]);
      await h.chat.cards.sync(runKey("acme", run.id));
      allThree(edits(), /Approved by rita at/);
    });

    test("with review channels, one card per channel instead of one per reviewer; other platforms keep DMs", async () => {
      const spec = loadDirectoryFile(EXAMPLE_CONFIG);
      const agent = spec.tenants.find((t) => t.id === "acme")!.agents.find((a) => a.name === "ops-agent")!;
      const { settings, reviewers } = agent;
      agent.settings = { ...settings, reviewChannel: { slack: "C0REVIEW", discord: "1100000000000000300" } };
      agent.reviewers = ["rita", "sam"]; // a run may only name reviewers the directory lists
      await syncDirectory(h.ctx.store, spec);
      try {
        const run = await createRunWithCards(h, "all-channels", { reviewers: ["rita", "sam"] });
        const where = (await cardRows(h, run.id)).map((c) => `${c.platform}:${c.channelId}`).sort();
        expect(where).toEqual([
          "discord:1100000000000000300",
          "slack:C0REVIEW",
          "telegram:7000003",
          "telegram:7000004",
        ]);
        expect(slack.callsTo("conversations.open")).toEqual([]);
      } finally {
        agent.settings = settings;
        agent.reviewers = reviewers;
        await syncDirectory(h.ctx.store, spec);
      }
    });

    test("changes whose events were missed (a restart) are caught up by the sync at start", async () => {
      const decided = await createRunWithCards(h, "all-missed");
      // The same handlers with nobody listening: as if the bot had been down when these happened.
      const unheard = { ...h.ctx, events: new HoldfastEvents() };
      const actor = (await findUserByIdentity(h.ctx.store.db, `telegram:${RITA.telegram}`))!;
      const { version, digest } = decided;
      const decision = {
        runId: runKey("acme", decided.id),
        eventId: "missed-1",
        action: "approve" as const,
        version,
        digest,
        actor,
      };
      expect((await decideRun(unheard, decision)).result).toBe("approved");
      const created = await createRunForAgent(unheard, {
        agent: (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!,
        id: "all-missed-new",
        operation: "send-invoice",
        destination: "http://127.0.0.1:4000/actions",
        packet: { n: 1 },
        reviewers: ["rita"],
        deadline: new Date(Date.now() + 3_600_000),
      });
      expect(created.kind).toBe("created");
      expect(await cardRows(h, "all-missed-new")).toEqual([]);

      await h.chat.cards.syncAll();
      expect((await cardRows(h, decided.id)).map((c) => c.shows)).toEqual(["approved", "approved", "approved"]);
      allThree(edits(), /Approved by rita at/);
      expect((await cardRows(h, "all-missed-new")).map((c) => c.shows)).toEqual(["open", "open", "open"]);
    });
  });
});
