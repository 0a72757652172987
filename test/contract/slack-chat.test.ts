import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
  blockActionsBody,
  postSigned,
  type SlackFake,
  slackArgs,
  slashCommandBody,
  startSlackFake,
} from "../fakes/slack-fake";
import { agentSays, type ChatHarness, startChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";

// The chat layer keeps its state (buttons, cards, channels) in the store: every contract runs on both databases.
describe.each(PROVIDERS)("on %s", (provider) => {
  // Real Bolt, behind our Fastify route, against the Slack fake. Users come from holdfast.example.yaml.

  const SECRET = "slack-signing-secret-for-tests";
  const TEAM = "T0ACME";
  const USERS = { ada: "U0ADA", alice: "U0ALICE", mia: "U0MIA" } as const;

  let fake: SlackFake;
  let h: ChatHarness;
  let seq = 0;

  beforeAll(async () => {
    fake = await startSlackFake({ teamId: TEAM });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    h = await startChatHarness(provider, {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.apiUrl,
    });
    fake.calls.length = 0;
    return () => h.close();
  });

  const events = () => `${h.url}/slack/events`;

  /** Runs a slash command as `user`, returns what the bot answered through response_url (or posted). */
  async function slash(command: string, text: string, user: string, team = TEAM) {
    const id = `r${++seq}`;
    const body = slashCommandBody({ command, text, user_id: user, team_id: team, response_url: fake.responseUrl(id) });
    const ack = await postSigned(events(), body, SECRET);
    expect(ack.status).toBe(200);
    await ack.text();
    return fake.waitFor(
      (c) => c.path === `/response/${id}` || (command === "/resume" && c.path === "/api/chat.postMessage"),
    );
  }

  async function click(action: string, token: string, user: string, message: { ts: string; channel: string }) {
    const id = `a${++seq}`;
    const body = blockActionsBody({
      action_id: action,
      value: token,
      user: { id: user, team_id: TEAM },
      team: { id: TEAM },
      message,
      response_url: fake.responseUrl(id),
    });
    const ack = await postSigned(events(), body, SECRET);
    expect(ack.status).toBe(200);
    await ack.text();
    return fake.waitFor((c) => c.path === `/response/${id}`);
  }

  const textOf = (call: { json?: unknown }) => (call.json as { text: string }).text;

  describe("slack", () => {
    test("a member pauses but cannot resume; the principal resumes through the preflight card", async () => {
      expect(textOf(await slash("/pause", "vacation", USERS.mia))).toMatch(/ops-agent is paused by mia .*vacation/);
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "member", reason: "vacation" });

      expect(textOf(await slash("/resume", "", USERS.mia))).toContain("(forbidden)");
      expect(fake.callsTo("chat.postMessage")).toHaveLength(0);

      const posted = await slash("/resume", "", USERS.alice);
      const args = slackArgs(posted);
      const blocks = JSON.parse(String(args.blocks)) as Array<{
        type: string;
        elements?: Array<{ action_id: string; value: string }>;
      }>;
      expect(JSON.stringify(blocks)).toContain("Resume ops-agent?");
      expect(JSON.stringify(blocks)).toContain("alice (principal)");
      expect(JSON.stringify(blocks)).toContain("auth.test ok");
      const buttons = blocks.find((b) => b.type === "actions")!.elements!;
      const confirm = buttons.find((b) => b.action_id === "resume.confirm")!.value;
      // The click names the message it came from; the edit must target exactly that message.
      const card = { ts: "1700000000.000777", channel: "C0001" };

      // An unauthorized Confirm is refused and changes nothing.
      expect(textOf(await click("resume.confirm", confirm, USERS.mia, card))).toContain("(forbidden)");
      expect(await h.control()).toMatchObject({ state: "PAUSED" });
      expect(fake.callsTo("chat.update")).toHaveLength(0);

      await click("resume.confirm", confirm, USERS.alice, card);
      expect(await h.control()).toMatchObject({ state: "RUNNING", holdLevel: "none" });
      const update = slackArgs(fake.callsTo("chat.update")[0]!);
      expect(update).toMatchObject({ channel: card.channel, ts: card.ts });
      expect(String(update.blocks)).toContain("Resumed by alice");
      expect(String(update.blocks)).not.toContain('"actions"');

      const audit = await h.db.store.db.controlAudit.findMany({ orderBy: { id: "asc" } });
      expect(audit.map((a) => [a.action, a.actorId, a.outcome])).toEqual([
        ["pause", "acme:mia", "paused"],
        ["resume", "acme:mia", "forbidden"],
        ["resume", "acme:mia", "forbidden"],
        ["resume", "acme:alice", "resumed"],
      ]);
    });

    test("/console answers the caller alone with a one-time sign-in link", async () => {
      const answer = await slash("/console", "", USERS.alice);
      expect((answer.json as { response_type?: string }).response_type).not.toBe("in_channel");
      expect(textOf(answer)).toMatch(/valid 10 minutes, works once\): http:\/\/console\.test\/sign-in\/[\w-]{20,}$/);
      const links = await h.db.store.db.consoleLink.findMany();
      expect(links.map((l) => l.userId)).toEqual(["acme:alice"]);
      expect(fake.callsTo("chat.postMessage")).toHaveLength(0);
    });

    test("an admin hold cannot be lifted by the principal", async () => {
      await slash("/pause", "incident 2h", USERS.ada);
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "admin" });
      const answer = textOf(await slash("/resume", "ops-agent", USERS.alice));
      expect(answer).toBe("This pause is an admin hold; only an admin can lift it. (creator_hold)");
      expect(await h.control()).toMatchObject({ state: "PAUSED", holdLevel: "admin" });
    });

    test("forged, stale, future-dated and replayed requests get 401 and change nothing", async () => {
      const body = slashCommandBody({
        command: "/pause",
        text: "x",
        user_id: USERS.ada,
        team_id: TEAM,
        response_url: fake.responseUrl("f"),
      });
      const before = await h.auditCount();
      const forged = await postSigned(events(), body, "not-the-secret");
      const stale = await postSigned(events(), body, SECRET, undefined, {
        timestamp: Math.floor(Date.now() / 1000) - 600,
      });
      const tampered = await postSigned(events(), body, SECRET, undefined, {
        headers: { "x-slack-request-timestamp": String(Math.floor(Date.now() / 1000) + 1) },
      });
      // Signed with the secret, but dated ten minutes ahead: a request kept back to be replayed later.
      const future = await postSigned(events(), body, SECRET, undefined, {
        timestamp: Math.floor(Date.now() / 1000) + 600,
      });
      expect([forged.status, stale.status, tampered.status, future.status]).toEqual([401, 401, 401, 401]);
      await new Promise((r) => setTimeout(r, 100));
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      expect(await h.auditCount()).toBe(before);
      // Only Bolt's start-up auth.test may have reached Slack; nothing was answered or posted.
      expect(fake.calls.map((c) => c.path).filter((p) => p !== "/api/auth.test")).toEqual([]);
    });

    test("unknown users and unconfigured teams are politely refused", async () => {
      expect(textOf(await slash("/pause", "x", "U0NOBODY"))).toContain("I don't know you yet");
      expect(textOf(await slash("/pause", "x", USERS.alice, "T0ELSEWHERE"))).toContain("(unknown_workspace)");
      // alice's id in globex's team is not alice: identities are per team.
      expect(textOf(await slash("/pause", "x", USERS.alice, "T0GLOBEX"))).toContain("(unknown_user)");
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      expect(await h.auditCount()).toBe(0);
    });

    test("a DM while paused reaches the agent, and the agent's reply reaches the DM", async () => {
      await slash("/pause", "vacation", USERS.alice);
      const dm = {
        type: "event_callback",
        team_id: TEAM,
        api_app_id: "A0001",
        event_id: "Ev0001",
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: "message",
          channel_type: "im",
          channel: "D0ALICE",
          user: USERS.alice,
          text: "are you there?",
          ts: "1700000100.000200",
        },
      };
      const ack = await postSigned(events(), JSON.stringify(dm), SECRET, "application/json");
      expect(ack.status).toBe(200);
      const delivered = await h.agent.waitFor((c) => c.path === "/agent");
      expect(delivered.headers["idempotency-key"]).toBe("slack:D0ALICE:1700000100.000200");
      expect(delivered.json).toMatchObject({
        agent: "ops-agent",
        platform: "slack",
        channel: "D0ALICE",
        user: "alice",
        text: "are you there?",
      });
      expect(await h.control()).toMatchObject({ state: "PAUSED" });

      const reply = await agentSays(h, { platform: "slack", channel: "D0ALICE", text: "yes, on it" });
      expect(reply.status).toBe(201);
      expect(slackArgs(await fake.waitFor((c) => c.path === "/api/chat.postMessage"))).toMatchObject({
        channel: "D0ALICE",
        text: "yes, on it",
      });
      expect((await agentSays(h, { platform: "slack", channel: "C0SOMEWHERE", text: "hi" })).status).toBe(403);
    });

    test("a card the bot cannot post into the channel goes to the caller, and its click edits it in place", async () => {
      await slash("/pause", "vacation", USERS.alice);
      const notInChannel = fake.respond("/api/chat.postMessage", () => ({
        body: { ok: false, error: "not_in_channel" },
      }));
      const noUpdate = fake.respond("/api/chat.update", () => ({ body: { ok: false, error: "message_not_found" } }));
      try {
        const id = `r${++seq}`;
        const body = slashCommandBody({
          command: "/resume",
          user_id: USERS.alice,
          team_id: TEAM,
          response_url: fake.responseUrl(id),
        });
        await (await postSigned(events(), body, SECRET)).text();
        const card = (await fake.waitFor((c) => c.path === `/response/${id}`)).json as {
          response_type: string;
          blocks: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>;
        };
        expect(card.response_type).toBe("ephemeral");
        const confirm = card.blocks
          .find((b) => b.type === "actions")!
          .elements!.find((e) => e.action_id === "resume.confirm")!;
        const clickId = `a${++seq}`;
        const click = blockActionsBody({
          action_id: "resume.confirm",
          value: confirm.value,
          user: { id: USERS.alice, team_id: TEAM },
          team: { id: TEAM },
          message: null,
          container: { type: "message", message_ts: "1700000000.000900", channel_id: "C0001", is_ephemeral: true },
          response_url: fake.responseUrl(clickId),
        });
        await (await postSigned(events(), click, SECRET)).text();
        const replaced = await fake.waitFor(
          (c) =>
            c.path === `/response/${clickId}` && (c.json as { replace_original?: boolean }).replace_original === true,
        );
        expect(JSON.stringify(replaced.json)).toContain("Resumed by alice");
        expect(await h.control()).toMatchObject({ state: "RUNNING" });
      } finally {
        notInChannel();
        noUpdate();
      }
    });

    test("a mention in a channel reaches the agent without the mention", async () => {
      const mention = {
        type: "event_callback",
        team_id: TEAM,
        api_app_id: "A0001",
        event_id: "Ev0002",
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: "app_mention",
          channel: "C0OPS",
          user: USERS.mia,
          text: "<@UBOT0001> how is the deploy?",
          ts: "1700000200.000300",
        },
      };
      await (await postSigned(events(), JSON.stringify(mention), SECRET, "application/json")).text();
      const delivered = await h.agent.waitFor((c) => c.path === "/agent");
      expect(delivered.json).toMatchObject({
        channel: "C0OPS",
        user: "mia",
        text: "how is the deploy?",
        isDirect: false,
      });
    });
  });
});
