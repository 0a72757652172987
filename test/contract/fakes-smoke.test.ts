import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { Client, Events, GatewayIntentBits, InteractionResponseType } from "discord.js";
import { Telegraf } from "telegraf";
import { describe, expect, test } from "vitest";
import {
  buttonInteraction,
  makeDiscordKeyPair,
  slashCommandInteraction,
  startDiscordFake,
  verifyDiscordSignature,
} from "../fakes/discord-fake";
import { blockActionsBody, postSigned, slashCommandBody, startSlackFake } from "../fakes/slack-fake";
import { callbackQueryUpdate, commandUpdate, startTelegramFake } from "../fakes/telegram-fake";

// Proves each real chat library talks to its fake; contract tests build on these fakes.

const TIMEOUT = { timeout: 10_000 };

describe("chat platform fakes", () => {
  test(
    "slack: Bolt HTTPReceiver acks a signed slash command, handles a click, rejects a bad signature",
    TIMEOUT,
    async () => {
      const secret = "test-signing-secret";
      const fake = await startSlackFake();
      const app = new App({
        token: "xoxb-test",
        // The forged request below makes the receiver warn; that noise is expected.
        receiver: new HTTPReceiver({ signingSecret: secret, logLevel: LogLevel.ERROR }),
        logLevel: LogLevel.ERROR,
        clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
      });
      app.command("/pause", async ({ command, ack, client }) => {
        await ack({ response_type: "ephemeral", text: `pausing ${command.text}` });
        await client.chat.postMessage({ channel: command.channel_id, text: `Paused ${command.text}` });
      });
      app.action("resume", async ({ ack, respond }) => {
        await ack();
        await respond({ replace_original: false, text: "resumed" });
      });
      try {
        const server = (await app.start(0)) as Server;
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;

        const command = slashCommandBody({ command: "/pause", text: "deploys", response_url: fake.responseUrl("cmd") });
        const ack = await postSigned(url, command, secret);
        expect(ack.status).toBe(200);
        expect(await ack.json()).toEqual({ response_type: "ephemeral", text: "pausing deploys" });
        const posted = await fake.waitFor((c) => c.path === "/api/chat.postMessage");
        expect(posted.form).toMatchObject({ channel: "C0001", text: "Paused deploys" });
        expect(posted.headers.authorization).toBe("Bearer xoxb-test");

        const click = blockActionsBody({
          action_id: "resume",
          value: "deploys",
          response_url: fake.responseUrl("act"),
        });
        expect((await postSigned(url, click, secret)).status).toBe(200);
        const responded = await fake.waitFor((c) => c.path === "/response/act");
        expect(responded.json).toMatchObject({ text: "resumed" });

        const forged = await postSigned(url, command, secret, undefined, { headers: { "x-slack-signature": "v0=00" } });
        expect(forged.status).toBe(401);
        await forged.text();
      } finally {
        await app.stop();
        await fake.close();
      }
    },
  );

  test(
    "discord: discord.js logs in via the fake gateway and replies to a dispatched interaction",
    TIMEOUT,
    async () => {
      const fake = await startDiscordFake({ applicationId: "1100000000000000001" });
      const client = new Client({
        intents: [GatewayIntentBits.Guilds],
        rest: { api: fake.apiUrl, version: "10", retries: 0 },
      });
      client.on(Events.InteractionCreate, async (interaction) => {
        if (interaction.isChatInputCommand()) {
          await interaction.reply(`Paused ${interaction.options.getString("target", true)}`);
        } else if (interaction.isButton()) {
          await interaction.update({ content: "Resumed", components: [] });
        }
      });
      try {
        await client.login("fake-bot-token");
        await fake.ready;
        expect(fake.gatewayReceived.some((p) => p.op === 2)).toBe(true);

        fake.dispatch(
          "INTERACTION_CREATE",
          slashCommandInteraction({
            id: "9001",
            token: "tok-9001",
            guildId: "500",
            name: "pause",
            options: { target: "deploys" },
          }),
        );
        const reply = await fake.waitFor((c) => c.path === "/api/v10/interactions/9001/tok-9001/callback");
        expect(reply.json).toMatchObject({
          type: InteractionResponseType.ChannelMessageWithSource,
          data: { content: "Paused deploys" },
        });

        fake.dispatch("INTERACTION_CREATE", buttonInteraction({ id: "9002", token: "tok-9002", customId: "resume" }));
        const update = await fake.waitFor((c) => c.path === "/api/v10/interactions/9002/tok-9002/callback");
        expect(update.json).toMatchObject({ type: InteractionResponseType.UpdateMessage });

        // The HTTP-interactions signing helper must satisfy a node:crypto verifier.
        const keys = makeDiscordKeyPair();
        const headers = keys.headers('{"type":1}', "1700000000");
        expect(
          verifyDiscordSignature(keys.publicKeyHex, "1700000000", '{"type":1}', headers["x-signature-ed25519"]),
        ).toBe(true);
        expect(
          verifyDiscordSignature(keys.publicKeyHex, "1700000000", '{"type":2}', headers["x-signature-ed25519"]),
        ).toBe(false);
      } finally {
        await client.destroy();
        await fake.close();
      }
    },
  );

  test("telegram: Telegraf handles /pause and a callback query, and long-polls queued updates", TIMEOUT, async () => {
    const token = "123456:TEST";
    const fake = await startTelegramFake(token);
    const bot = new Telegraf(token, { telegram: { apiRoot: fake.url, webhookReply: false } });
    bot.command("pause", (ctx) => ctx.reply(`Paused ${ctx.payload}`));
    bot.action("resume", (ctx) => ctx.answerCbQuery("resuming"));
    let polling: Promise<void> | undefined;
    try {
      await bot.handleUpdate(commandUpdate({ fromId: 7, chatId: 42, text: "/pause deploys" }));
      const sent = await fake.waitFor((c) => c.path.endsWith("/sendMessage"));
      expect(sent.json).toMatchObject({ chat_id: 42, text: "Paused deploys" });

      await bot.handleUpdate(callbackQueryUpdate({ id: "cbq-1", chatId: 42, messageId: 1, data: "resume" }));
      const answered = await fake.waitFor((c) => c.path.endsWith("/answerCallbackQuery"));
      expect(answered.json).toMatchObject({ callback_query_id: "cbq-1", text: "resuming" });

      polling = bot.launch();
      fake.queueUpdate(commandUpdate({ chatId: 43, text: "/pause builds" }));
      const polled = await fake.waitFor(
        (c) => c.path.endsWith("/sendMessage") && (c.json as { chat_id?: number }).chat_id === 43,
      );
      expect(polled.json).toMatchObject({ text: "Paused builds" });
    } finally {
      if (polling) {
        bot.stop("test over");
        await polling;
      }
      await fake.close();
    }
  });
});
