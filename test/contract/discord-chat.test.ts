import { ChannelType } from "discord.js";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
  buttonInteraction,
  type DiscordFake,
  type DiscordKeyPair,
  discordMessage,
  discordUser,
  makeDiscordKeyPair,
  slashCommandInteraction,
  startDiscordFake,
} from "../fakes/discord-fake";
import type { RecordedCall } from "../fakes/recording-http";
import { agentSays, type ChatHarness, startChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // Real discord.js on the fake gateway and REST API, plus the signed HTTP interactions endpoint.

  const APP = "1100000000000000001";
  const GUILD = "900000000000000001";
  const USERS = { ada: "800000000000000001", alice: "800000000000000002", mia: "800000000000000006" } as const;
  const CHANNEL = "1100000000000000300";

  let fake: DiscordFake;
  let keys: DiscordKeyPair;
  let h: ChatHarness;
  let seq = 0;

  beforeAll(async () => {
    fake = await startDiscordFake({ applicationId: APP });
    keys = makeDiscordKeyPair();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    h = await startChatHarness(provider, {
      DISCORD_TOKEN: "discord-bot-token",
      DISCORD_APPLICATION_ID: APP,
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_PUBLIC_KEY: keys.publicKeyHex,
    });
    return () => h.close();
  });

  const callback = (id: string) => (c: RecordedCall) => c.path === `/api/v10/interactions/${id}/tok-${id}/callback`;
  const content = (call: RecordedCall) => (call.json as { data: { content: string } }).data.content;

  async function slash(name: string, user: string, options: Record<string, string> = {}, guildId: string = GUILD) {
    const id = String(9_000_000 + ++seq);
    fake.dispatch(
      "INTERACTION_CREATE",
      slashCommandInteraction({ id, token: `tok-${id}`, guildId, userId: user, name, options }),
    );
    return fake.waitFor(callback(id));
  }

  async function click(customId: string, user: string, messageId: string) {
    const id = String(9_000_000 + ++seq);
    const message = discordMessage({ id: messageId, channelId: CHANNEL });
    fake.dispatch(
      "INTERACTION_CREATE",
      buttonInteraction({ id, token: `tok-${id}`, guildId: GUILD, userId: user, customId, message }),
    );
    await fake.waitFor(callback(id)); // deferUpdate, within Discord's 3 s
    return fake.waitFor((c) => c.path === `/api/v10/webhooks/${APP}/tok-${id}`); // the ephemeral note
  }

  describe("discord", () => {
    test("commands are registered on start", () => {
      expect(fake.globalCommands.map((c) => (c as { name: string }).name)).toEqual([
        "pause",
        "resume",
        "status",
        "approvals",
        "console",
        "escalations",
        "maintenance",
      ]);
    });

    test("a member pauses but cannot resume; the principal confirms the preflight card", async () => {
      expect(content(await slash("pause", USERS.mia, { text: "vacation" }))).toMatch(/paused by mia .*vacation/);
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "member" });
      const refused = await slash("resume", USERS.mia);
      expect(content(refused)).toContain("(forbidden)");
      expect((refused.json as { data: { flags: number } }).data.flags & 64).toBe(64); // ephemeral

      await slash("resume", USERS.alice);
      const posted = await fake.waitFor(
        (c) => c.method === "POST" && c.path === `/api/v10/channels/${CHANNEL}/messages`,
      );
      const body = posted.json as {
        embeds: Array<{ title: string }>;
        components: Array<{ components: Array<{ custom_id: string }> }>;
      };
      expect(body.embeds[0]!.title).toBe("Resume ops-agent?");
      const [confirm] = body.components[0]!.components.map((b) => b.custom_id);
      expect(confirm!.length).toBeLessThanOrEqual(100);

      const note = await click(confirm!, USERS.mia, "1300000000000000001");
      expect(note.json).toMatchObject({ content: expect.stringContaining("(forbidden)"), flags: 64 });
      expect(fake.calls.filter((c) => c.method === "PATCH")).toHaveLength(0);
      expect(await h.control()).toMatchObject({ state: "PAUSED" });

      await click(confirm!, USERS.alice, "1300000000000000002");
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      const edit = await fake.waitFor(
        (c) => c.method === "PATCH" && c.path === `/api/v10/channels/${CHANNEL}/messages/1300000000000000002`,
      );
      const edited = edit.json as { embeds: Array<{ footer: { text: string } }>; components: unknown[] };
      expect(edited.embeds[0]!.footer.text).toMatch(/^Resumed by alice/);
      expect(edited.components).toEqual([]);
    });

    test("an admin hold cannot be lifted by the principal", async () => {
      await slash("pause", USERS.ada, { text: "incident" });
      expect(content(await slash("resume", USERS.alice))).toContain("only an admin can lift it. (creator_hold)");
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "admin" });
    });

    test("the HTTP interactions endpoint checks Ed25519 signatures", async () => {
      const url = `${h.url}/discord/interactions`;
      const send = (payload: object, headers: Record<string, string>) =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(payload),
        });
      const ping = { type: 1, id: "1", application_id: APP, token: "t", version: 1 };
      const pong = await send(ping, keys.headers(JSON.stringify(ping)));
      expect(await pong.json()).toEqual({ type: 1 });

      const pause = slashCommandInteraction({
        id: "9100",
        token: "tok-9100",
        guildId: GUILD,
        userId: USERS.ada,
        name: "pause",
        options: { text: "x" },
      });
      const forged = await send(pause, makeDiscordKeyPair().headers(JSON.stringify(pause)));
      const old = await send(pause, keys.headers(JSON.stringify(pause), String(Math.floor(Date.now() / 1000) - 3600)));
      expect([forged.status, old.status]).toEqual([401, 401]);
      expect(await h.control()).toMatchObject({ state: "RUNNING" });

      const signed = await send(pause, keys.headers(JSON.stringify(pause)));
      expect(signed.status).toBe(202);
      expect(content(await fake.waitFor(callback("9100")))).toContain("paused by ada");
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "admin" });
    });

    test("unknown users and unconfigured guilds are politely refused", async () => {
      expect(content(await slash("pause", "800000000000099999", { text: "x" }))).toContain("(unknown_user)");
      expect(content(await slash("pause", USERS.alice, { text: "x" }, "900000000000000999"))).toContain(
        "(unknown_workspace)",
      );
      expect(content(await slash("pause", USERS.alice, { text: "x" }, "900000000000000002"))).toContain(
        "(unknown_user)",
      );
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      expect(await h.auditCount()).toBe(0);
    });

    test("a DM while paused reaches the agent, and the agent's reply reaches the DM", async () => {
      await slash("pause", USERS.alice, { text: "vacation" });
      const dmChannel = "1100000000000000777";
      // Discord marks DM messages with channel_type, which is how discord.js builds the (uncached) DM channel.
      const dm = {
        ...discordMessage({ channelId: dmChannel, author: discordUser(USERS.alice, "alice"), content: "still there?" }),
        channel_type: ChannelType.DM,
      };
      fake.dispatch("MESSAGE_CREATE", dm);
      const delivered = await h.agent.waitFor((c) => c.path === "/agent");
      expect(delivered.headers["idempotency-key"]).toBe(`discord:${dmChannel}:${dm.id}`);
      expect(delivered.json).toMatchObject({
        platform: "discord",
        user: "alice",
        text: "still there?",
        isDirect: true,
      });
      expect(await h.control()).toMatchObject({ state: "PAUSED" });

      expect((await agentSays(h, { platform: "discord", channel: dmChannel, text: "here" })).status).toBe(201);
      const sent = await fake.waitFor((c) => c.path === `/api/v10/channels/${dmChannel}/messages`);
      expect(sent.json).toMatchObject({ content: "here" });
    });
  });
});
