import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { RecordedCall } from "../fakes/recording-http";
import {
  blockActionsBody,
  postSigned,
  type SlackFake,
  slackArgs,
  slashCommandBody,
  startSlackFake,
} from "../fakes/slack-fake";
import { type ChatHarness, OPS_AGENT_KEY, startChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";

// The resume card carries the checklist (design.md section 12): real Bolt against the Slack fake.
describe.each(PROVIDERS)("the resume checklist on the Slack card, on %s", (provider) => {
  const SECRET = "slack-signing-secret-for-tests";
  const TEAM = "T0ACME";
  const USERS = { alice: "U0ALICE", mia: "U0MIA" } as const;
  const CARD = { ts: "1700000000.000888", channel: "C0001" };
  let fake: SlackFake;
  let h: ChatHarness;
  let seq = 0;

  beforeAll(async () => {
    fake = await startSlackFake({ teamId: TEAM });
  });
  afterAll(() => fake.close());
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
  async function slash(command: string, text: string, user: string) {
    const id = `r${++seq}`;
    const body = slashCommandBody({ command, text, user_id: user, team_id: TEAM, response_url: fake.responseUrl(id) });
    await (await postSigned(events(), body, SECRET)).text();
    return fake.waitFor(
      (c) => c.path === `/response/${id}` || (command === "/resume" && c.path === "/api/chat.postMessage"),
    );
  }
  async function click(action: string, token: string, user: string) {
    const id = `a${++seq}`;
    const body = blockActionsBody({
      action_id: action,
      value: token,
      user: { id: user, team_id: TEAM },
      team: { id: TEAM },
      message: CARD,
      response_url: fake.responseUrl(id),
    });
    await (await postSigned(events(), body, SECRET)).text();
    return fake.waitFor((c) => c.path === `/response/${id}`);
  }
  const textOf = (call: { json?: unknown }) => (call.json as { text: string }).text;
  const buttonsOf = (posted: RecordedCall) => {
    const blocks = JSON.parse(String(slackArgs(posted).blocks)) as Array<{
      type: string;
      elements?: Array<{ action_id: string; value: string }>;
    }>;
    return { text: JSON.stringify(blocks), buttons: blocks.find((b) => b.type === "actions")?.elements ?? [] };
  };
  const atStart = async () => {
    const response = await fetch(`${h.url}/v1/agents/ops-agent/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPS_AGENT_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        eventId: "c-1",
        type: "onboarding",
        payload: {},
        stateDelta: { runId: "onb-1", checkpoint: "START" },
      }),
    });
    expect(response.status).toBe(202);
  };
  /** ops-agent's webhook answers the readiness call at this checkpoint. */
  const agentAt = (checkpoint: string) =>
    h.agent.respond("/agent", (call) =>
      (call.json as { type?: string })?.type === "holdfast.readiness"
        ? { status: 200, body: { ready: true, checkpoint } }
        : undefined,
    );

  test("an agent at its recorded checkpoint: every mark ok, no override, and Confirm releases", async () => {
    await atStart();
    agentAt("START");
    await slash("/pause", "vacation", USERS.alice);
    const card = buttonsOf(await slash("/resume", "", USERS.alice));
    for (const check of ["checkpoint", "pending", "inbound", "credentials", "idempotency", "actor"])
      expect(card.text).toContain(`[ok] ${check}:`);
    expect(card.buttons.map((b) => b.action_id)).toEqual(["resume.confirm", "resume.cancel"]);
    const confirm = card.buttons.find((b) => b.action_id === "resume.confirm")!.value;
    await click("resume.confirm", confirm, USERS.alice);
    expect(await h.control()).toMatchObject({ state: "RUNNING" });
    const update = String(slackArgs(fake.callsTo("chat.update")[0]!).blocks);
    expect(update).toContain("Resumed by alice");
    expect(update).toContain("[ok] checkpoint:");
  });

  test("another checkpoint: the card shows both, Confirm is refused, Resume anyway by the principal releases once", async () => {
    await atStart();
    agentAt("DOCUMENTS_SIGNED");
    await slash("/pause", "vacation", USERS.alice);
    const card = buttonsOf(await slash("/resume", "", USERS.alice));
    expect(card.text).toContain("[FAIL] checkpoint:");
    expect(card.text).toContain('\\"START\\"');
    expect(card.text).toContain('\\"DOCUMENTS_SIGNED\\"');
    expect(card.buttons.map((b) => b.action_id)).toEqual(["resume.confirm", "resume.override", "resume.cancel"]);
    const token = (action: string) => card.buttons.find((b) => b.action_id === action)!.value;

    expect(textOf(await click("resume.confirm", token("resume.confirm"), USERS.alice))).toContain("(checklist_failed)");
    expect(await h.control()).toMatchObject({ state: "PAUSED" });
    expect(textOf(await click("resume.override", token("resume.override"), USERS.mia))).toContain("(forbidden)");
    expect(await h.control()).toMatchObject({ state: "PAUSED" });

    await click("resume.override", token("resume.override"), USERS.alice);
    expect(await h.control()).toMatchObject({ state: "RUNNING" });
    expect(await h.db.store.db.release.count()).toBe(1);
    const update = String(slackArgs(fake.callsTo("chat.update").at(-1)!).blocks);
    expect(update).toContain("Resumed by alice");
    expect(update).toContain("[FAIL] checkpoint:");
    const audit = await h.db.store.db.controlAudit.findMany({ where: { action: "resume" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.actorId, a.outcome])).toEqual([
      ["acme:alice", "checklist_failed"],
      ["acme:mia", "forbidden"],
      ["acme:alice", "resumed"],
    ]);
    expect(audit.at(-1)!.reason).toContain("override: Resume anyway on the slack card");
  });
});
