import { describe, expect, test } from "vitest";
import { syncDirectory } from "../../src/store/directory/directory";
import type { RecordedCall } from "../fakes/recording-http";
import * as slack from "../fakes/slack-fake";
import { exampleDirectory } from "../support/agent-stand-in";
import { createRunWithCards } from "../support/approval-cards";
import { type ChatHarness, startChatHarness } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { EXAMPLE_CONFIG } from "../support/harness";
import { SLACK_SECRET, SLACK_TEAM } from "../support/platform-chats";

// What the person-facing paths cost the database, counted at the driver (every statement the pg client or a
// better-sqlite3 statement is asked to run), through real Bolt, our webhook route and the chat router. The
// card sync is stopped before each counted request: it is a reaction to `run.changed`, not part of the path.
// Transaction control (BEGIN, COMMIT, ...) is counted apart: better-sqlite3 runs its own without a statement.

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i;
/** A read of the Control table (not of its audit). */
const CONTROL_READ = /^SELECT\b.*\bFROM\s+[`"]?\w+[`"]?\.[`"]Control[`"]\s/s;
const USERS = { alice: "U0ALICE", mia: "U0MIA", rita: "U0RITA" } as const;

describe.each(PROVIDERS)("statements per person-facing path on %s", (provider) => {
  const seen: string[] = [];
  let lastStatementAt = 0;
  let fake: slack.SlackFake;
  let h: ChatHarness;
  let seq = 0;

  async function start(): Promise<void> {
    fake = await slack.startSlackFake({ teamId: SLACK_TEAM });
    const env = { SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_API_URL: fake.apiUrl };
    h = await startChatHarness(provider, env, {
      onStatement: (sql) => {
        seen.push(sql);
        lastStatementAt = Date.now();
      },
    });
  }
  async function stop(): Promise<void> {
    await h.close();
    await fake.close();
  }

  /** Waits until the start-up card sync (and any other background read) has gone quiet. */
  async function quiet(): Promise<void> {
    while (Date.now() - lastStatementAt < 150) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** The statements `request` made, with transaction control apart; printed when asked for (the figures). */
  async function counted<T>(label: string, request: () => Promise<T>) {
    h.chat.cards.stop();
    await quiet();
    seen.length = 0;
    const result = await request();
    const data = seen.filter((sql) => !TRANSACTION_CONTROL.test(sql));
    if (process.env.SHOW_STATEMENTS)
      console.log(`${provider} ${label}: ${data.length} (+${seen.length - data.length} transaction control)`, data);
    return { result, data, listed: data.join("\n") };
  }

  async function slash(command: string, text: string, user: string): Promise<RecordedCall> {
    const id = `r${++seq}`;
    const body = slack.slashCommandBody({
      command,
      text,
      user_id: user,
      team_id: SLACK_TEAM,
      response_url: fake.responseUrl(id),
    });
    await (await slack.postSigned(`${h.url}/slack/events`, body, SLACK_SECRET)).text();
    return fake.waitFor(
      (c) => c.path === `/response/${id}` || (command === "/resume" && c.path === "/api/chat.postMessage"),
    );
  }

  async function click(action: string, value: string, user: string): Promise<string> {
    const id = `a${++seq}`;
    // A click on a card in channel C0001, as Slack sends it.
    const clicker = { id: user, team_id: SLACK_TEAM };
    const message = { ts: "1700000000.000001", channel: "C0001" };
    const response_url = fake.responseUrl(id);
    const body = slack.blockActionsBody({
      action_id: action,
      value,
      user: clicker,
      team: { id: SLACK_TEAM },
      message,
      response_url,
    });
    await (await slack.postSigned(`${h.url}/slack/events`, body, SLACK_SECRET)).text();
    return ((await fake.waitFor((c) => c.path === `/response/${id}`)).json as { text: string }).text;
  }

  const buttonOf = (post: RecordedCall, action: string): string => {
    const blocks = JSON.parse(String(slack.slackArgs(post).blocks)) as Array<{
      type: string;
      elements?: Array<{ action_id: string; value: string }>;
    }>;
    return blocks.find((b) => b.type === "actions")!.elements!.find((b) => b.action_id === action)!.value;
  };

  /** The example tenant with `more` agents beside ops-agent (copies of it without its key). */
  async function withMoreAgents(more: number): Promise<void> {
    const spec = await exampleDirectory(EXAMPLE_CONFIG);
    const acme = spec.tenants.find((t) => t.id === "acme")!;
    const ops = acme.agents[0]!;
    for (let i = 1; i <= more; i++) acme.agents.push({ ...ops, name: `agent-${i}`, agentKeyHash: undefined });
    await syncDirectory(h.db.store, spec);
  }

  // The clicker with the button (one read), the run with the click's earlier decision and the agent (one read),
  // the commit (the run, the event, the outbox row), and the pause gate, so the note says whether the approved
  // action goes out or is held.
  test("a Slack Approve click reaches its note in at most 6 statements", async () => {
    await start();
    try {
      const run = await createRunWithCards(h, "count-approve");
      const approve = buttonOf(fake.callsTo("chat.postMessage").at(-1)!, "run.approve");
      const { result: note, data, listed } = await counted("approve", () => click("run.approve", approve, USERS.rita));
      expect(note).toMatch(/^Approved send-invoice \(version 1\).*\(approved\)$/);
      expect(run.version).toBe(1);
      expect(data.length, listed).toBeLessThanOrEqual(6);
    } finally {
      await stop();
    }
  });

  // A click on a run decided already: the clicker, the button, and the run with the decision that moved it and
  // its actor's name (the note says who decided), in one read; nothing written.
  test("a late Approve click on a decided run reaches its note in 1 statement", async () => {
    await start();
    try {
      await createRunWithCards(h, "count-late");
      const approve = buttonOf(fake.callsTo("chat.postMessage").at(-1)!, "run.approve");
      await click("run.approve", approve, USERS.rita);
      const {
        result: note,
        data,
        listed,
      } = await counted("late approve", () => click("run.approve", approve, USERS.rita));
      expect(note).toMatch(/rita/);
      expect(data.length, listed).toBeLessThanOrEqual(1);
    } finally {
      await stop();
    }
  });

  // A pause also revokes the agent's tokens in its transaction: one statement more than before tokens.
  test.each([1, 20])("/pause for an agent of a tenant with %i agents takes at most 9 statements", async (agents) => {
    await start();
    try {
      if (agents > 1) await withMoreAgents(agents - 1);
      const { result, data, listed } = await counted(`pause (${agents} agents)`, () =>
        slash("/pause", "ops-agent vacation", USERS.mia),
      );
      expect((result.json as { text: string }).text).toMatch(/ops-agent is paused by mia .*vacation/);
      expect(data.length, listed).toBeLessThanOrEqual(9);
      // The agent's record at most twice for a pause: here once, with its tenant's (the held runtime's reaction,
      // not wired in this harness, reads it once more).
      expect(
        data.filter((sql) => CONTROL_READ.test(sql)),
        listed,
      ).toHaveLength(1);
    } finally {
      await stop();
    }
  });

  // The resume checklist reads what it judges before Confirm releases (design.md section 12): the paused record,
  // the last checkpoint, the triggers, the due times since the pause, the held actions, the events, the tokens.
  test("Confirm of a resume takes at most 16 statements before the release starts", async () => {
    await start();
    try {
      await slash("/pause", "ops-agent vacation", USERS.alice);
      const confirm = buttonOf(await slash("/resume", "ops-agent", USERS.alice), "resume.confirm");
      const {
        result: note,
        data,
        listed,
      } = await counted("confirm", () => click("resume.confirm", confirm, USERS.alice));
      expect(note).toBe("ops-agent resumed.");
      expect(await h.control()).toMatchObject({ state: "RUNNING" });
      expect(data.length, listed).toBeLessThanOrEqual(16);
    } finally {
      await stop();
    }
  });
});
