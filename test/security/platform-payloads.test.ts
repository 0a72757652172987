import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { slashCommandInteraction } from "../fakes/discord-fake";
import { blockActionsPayload, slashCommandBody } from "../fakes/slack-fake";
import { PROVIDERS } from "../support/databases";
import { DISCORD_APP, type Doors, startDoors, stateDigest } from "./doors-harness";

// Signed (so past every signature check) but malformed platform payloads: each is acknowledged as its
// platform expects, changes nothing, and the bot keeps serving.

describe.each(PROVIDERS)("%s: malformed but signed platform payloads", (provider) => {
  let d: Doors;
  beforeAll(async () => {
    d = await startDoors(provider);
    await d.discord.ready;
  });
  afterAll(async () => d?.close());

  test("a Discord gateway INTERACTION_CREATE {type: 2} is logged and dropped; the next command is served", async () => {
    const before = await stateDigest(d);
    for (const packet of [{ type: 2 }, { type: 3 }, null, { type: 2, data: null, id: "1" }]) {
      d.discord.dispatch("INTERACTION_CREATE", packet);
    }
    const id = "9900001";
    const status = slashCommandInteraction({
      id,
      token: `tok-${id}`,
      guildId: "900000000000000001",
      userId: "800000000000000006",
      name: "status",
      options: {},
    });
    d.discord.dispatch("INTERACTION_CREATE", status);
    const reply = await d.discord.waitFor((c) => c.path === `/api/v10/interactions/${id}/tok-${id}/callback`);
    expect((reply.json as { data: { content: string } }).data.content).toContain("ops-agent is RUNNING");
    expect(d.logs.filter((l) => l.includes("discord gateway packet dropped")).length).toBe(4);
    expect(await stateDigest(d)).toBe(before);
  });

  test("a Discord HTTP interaction {type: 2} or null is acknowledged (202) and changes nothing", async () => {
    const before = await stateDigest(d);
    for (const body of ['{"type":2}', "null", "[]", '{"type":3,"data":{}}', '"x"']) {
      expect((await d.discordPost(body)).status).toBe(202);
    }
    expect(await stateDigest(d)).toBe(before);
    // Still serving: a PING is answered.
    const ping = JSON.stringify({ type: 1, id: "1", application_id: DISCORD_APP, token: "t", version: 1 });
    expect(await d.discordPost(ping)).toMatchObject({ status: 200, body: '{"type":1}' });
  });

  test("a Telegram update of null (or any non-update) is acknowledged (200) and changes nothing", async () => {
    const before = await stateDigest(d);
    for (const body of ["null", "[]", "7", '{"update_id":"x"}', '{"update_id":1,"message":null}']) {
      expect((await d.telegramPost(body)).status).toBe(200);
    }
    expect(await stateDigest(d)).toBe(before);
  });

  test("a signed Slack body of JSON null, or an action without a user, is acknowledged and changes nothing", async () => {
    const before = await stateDigest(d);
    const json = "application/json";
    expect((await d.slackPost("null", json)).status).toBe(200);
    expect((await d.slackPost('{"type":"event_callback"}', json)).status).toBe(200);
    expect((await d.slackPost("payload=null")).status).toBe(200);
    expect((await d.slackPost('payload={"type":"block_actions"}')).status).toBe(200);
    const click = blockActionsPayload({ action_id: "resume.confirm", value: "AAAAAAAAAAAAAAAA", response_url: "x" });
    const noUser = new URLSearchParams({ payload: JSON.stringify({ ...click, user: null }) }).toString();
    expect((await d.slackPost(noUser)).status).toBe(200);
    const command = slashCommandBody({ command: "/pause", text: "x", response_url: "http://127.0.0.1:1/r" });
    expect((await d.slackPost(command.replace(/user_id=[^&]*&?/, ""))).status).toBe(200);
    expect(await stateDigest(d)).toBe(before);
  });
});
