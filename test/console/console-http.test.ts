import { afterEach, describe, expect, it } from "vitest";
import { createRunForAgent } from "../../src/bot/app/approvals/create-run";
import { createSignInPath } from "../../src/bot/app/auth/console-sessions";
import { createChatEscalationMonitor } from "../../src/bot/main/escalation-wiring";
import { refusalText } from "../../src/bot/surfaces/chat/refusals";
import { agentScope } from "../../src/policy/ids";
import { hashKey } from "../../src/policy/key-hash";
import { readControl } from "../../src/store/control/change";
import { findAgent, findUserById } from "../../src/store/directory/directory";
import { Browser, type ConsoleHarness, createConsoleHarness, fromHtml } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";
import { recordingPlatform } from "../support/escalation-harness";
import { KEYS } from "../support/harness";

const OPS = agentScope("acme:ops-agent");
const DESTINATION = "http://127.0.0.1:4000/actions";

describe.each(PROVIDERS)("the console's sessions, forms and pages on %s", (provider) => {
  let h: ConsoleHarness;
  let clock = new Date("2026-12-01T09:00:00Z");
  const now = () => clock;
  afterEach(async () => {
    clock = new Date("2026-12-01T09:00:00Z");
    await h.close();
  });
  const audits = () => h.ctx.store.db.controlAudit.count({ where: { scope: OPS } });
  const stateOf = async () => (await readControl(h.ctx.store.db, OPS))!.state;

  it("signs in with a key: an HttpOnly, SameSite=Strict cookie whose token is stored only as a digest", async () => {
    h = await createConsoleHarness(provider, now);
    const b = h.browser();
    expect((await b.get("/")).status).toBe(303); // no session: to the sign-in page
    const form = await b.get("/sign-in");
    const answer = await b.post("/sign-in", { _csrf: Browser.token(form), key: KEYS.alice });
    expect(answer.status).toBe(303);
    const cookie = answer.cookies.find((c) => c.startsWith("hf_session="))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\//);
    const token = b.jar.get("hf_session")!;
    const rows = await h.ctx.store.db.consoleSession.findMany();
    expect(rows.map((r) => r.id)).toEqual([hashKey(token)]);
    expect((await b.get("/")).body).toContain("ops-agent");
    // Signing out ends the session in the database.
    await b.post("/sign-out", { _csrf: Browser.token(await b.get("/")) });
    expect(await h.ctx.store.db.consoleSession.count()).toBe(0);
  });

  it("opens no session for a wrong key or a sign-in without its form token", async () => {
    h = await createConsoleHarness(provider, now);
    const b = h.browser();
    const form = await b.get("/sign-in");
    expect((await b.post("/sign-in", { _csrf: Browser.token(form), key: "not-a-key" })).status).toBe(401);
    // As long as a real key but not ASCII: refused like any wrong key, never a 500.
    const notAscii = "\u00e9".repeat(KEYS.alice.length);
    expect((await b.post("/sign-in", { _csrf: Browser.token(form), key: notAscii })).status).toBe(401);
    const api = await h.inject("GET", "/v1/agents", undefined, undefined, undefined, {
      authorization: `Bearer ${notAscii}`,
    });
    expect(api.status).toBe(401);
    expect((await b.post("/sign-in", { key: KEYS.alice })).status).toBe(403);
    expect((await h.browser().post("/sign-in", { _csrf: Browser.token(form), key: KEYS.alice })).status).toBe(403);
    expect(await h.ctx.store.db.consoleSession.count()).toBe(0);
  });

  it("refuses a form post without its CSRF token, or with another session's, and changes nothing", async () => {
    h = await createConsoleHarness(provider, now);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    const other = await h.browser().signIn("sam");
    const before = await audits();
    const forms: Array<Record<string, string>> = [
      { reason: "vacation" },
      { reason: "vacation", _csrf: other },
      { reason: "vacation", _csrf: "" },
      // As long as the real token but not ASCII: unequal, not a 500 (the comparison once threw on it).
      { reason: "vacation", _csrf: "\u00e9".repeat(token.length) },
    ];
    for (const form of forms) {
      const answer = await alice.post("/agents/ops-agent/pause", form);
      expect(answer.status).toBe(403);
      expect(answer.body).toContain("nothing was changed");
    }
    expect(await stateOf()).toBe("RUNNING");
    expect(await audits()).toBe(before);
    const paused = await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: token });
    expect(paused.status).toBe(200);
    expect(fromHtml(paused.body)).toContain("ops-agent is paused by alice (a principal hold): vacation.");
    expect(await stateOf()).not.toBe("RUNNING");
  });

  it("lets a one-time link in once, and never after 10 minutes", async () => {
    h = await createConsoleHarness(provider, now);
    const alice = (await findUserById(h.ctx.store.db, "acme:alice"))!;
    const link = await createSignInPath(h.ctx, alice);
    // Opening it (as a chat app's link preview does) uses nothing up.
    expect((await h.browser().get(link)).status).toBe(200);
    expect((await h.browser().post(link, {})).status).toBe(403); // and its button needs the page's token
    const [first, second] = await Promise.all([h.browser().useLink(link), h.browser().useLink(link)]);
    expect([first.status, second.status].sort()).toEqual([303, 410]);
    expect((await h.browser().useLink(link)).status).toBe(410);
    expect(await h.ctx.store.db.consoleSession.count()).toBe(1);
    const late = await createSignInPath(h.ctx, alice);
    clock = new Date(clock.getTime() + 10 * 60_000 + 1);
    expect((await h.browser().useLink(late)).status).toBe(410);
    expect(await h.ctx.store.db.consoleSession.count()).toBe(1);
  });

  it("resumes only through the preflight, and refuses a member in the same words as chat", async () => {
    h = await createConsoleHarness(provider, now);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: token });
    const mia = h.browser();
    const miaToken = await mia.signIn("mia");
    const refused = await mia.post("/agents/ops-agent/resume", { _csrf: miaToken });
    expect(fromHtml(refused.body)).toContain(refusalText({ code: "forbidden", agent: "ops-agent" }, "slack"));
    expect(await stateOf()).not.toBe("RUNNING");
    // The refused attempt is in the agent's audit log, as a chat /resume's is.
    expect(fromHtml((await alice.get("/agents/ops-agent")).body)).toMatch(
      /<td>resume<\/td><td>mia<\/td><td>forbidden<\/td>/,
    );
    const preflight = await alice.post("/agents/ops-agent/resume", { _csrf: token });
    expect(fromHtml(preflight.body)).toContain("Resume ops-agent?");
    expect(await stateOf()).not.toBe("RUNNING"); // a preflight only reads
    const confirm = /name="button" value="(resume\.confirm:[\w-]+)"/.exec(preflight.body)![1]!;
    const resumed = await alice.post("/agents/ops-agent/card", { button: confirm, _csrf: token });
    expect(fromHtml(resumed.body)).toContain("Resumed by alice");
    expect(await stateOf()).toBe("RUNNING");
    // The same Confirm again resumes nothing twice.
    const again = await alice.post("/agents/ops-agent/card", { button: confirm, _csrf: token });
    expect(fromHtml(again.body)).toContain("ops-agent is already running.");
  });

  it("decides through the same handler as chat and the API, and escapes agent-supplied text", async () => {
    h = await createConsoleHarness(provider, now);
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    const operation = "<img src=x onerror=alert(1)>";
    const created = await createRunForAgent(h.ctx, {
      agent,
      id: "r1",
      operation,
      destination: DESTINATION,
      packet: { note: "<script>alert(1)</script>", evidence: ["a.pdf"] },
      deadline: new Date(clock.getTime() + 3_600_000),
    });
    expect(created.kind).toBe("created");
    const alice = h.browser();
    await alice.signIn("alice");
    const seen = (await alice.get("/approvals")).body;
    expect(seen).not.toContain("<script>alert");
    expect(seen).not.toContain("<img src=x");
    expect(seen).toContain("&lt;img src=x onerror=alert(1)&gt;"); // alice sees the waiting run
    expect(seen).not.toContain('value="approve"'); // but only its assigned reviewer gets the buttons
    const rita = h.browser();
    const token = await rita.signIn("rita");
    const page = await rita.get("/approvals");
    expect(page.body).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)![1]!;
    const form = { run: "r1", version: field("version"), digest: field("digest"), eventId: field("eventId") };
    const approved = await rita.post("/approvals/decide", { ...form, action: "approve", _csrf: token });
    expect(fromHtml(approved.body)).toContain(`Approved ${operation} (version 1). The action is queued. (approved)`);
    expect(fromHtml(approved.body)).toContain("Approved by rita");
    const again = await rita.post("/approvals/decide", { ...form, action: "approve", _csrf: token });
    expect(fromHtml(again.body)).toContain("(duplicate)");
    expect(await h.ctx.store.db.outboxItem.count({ where: { runId: "acme:r1" } })).toBe(1);
  });

  it("sends the chat box to the agent while it is paused, and shows the agent's reply", async () => {
    h = await createConsoleHarness(provider, now);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: token });
    await alice.post("/agents/ops-agent/chat", { text: "status please", _csrf: token });
    expect(h.posted).toHaveLength(1);
    expect(h.posted[0]).toMatchObject({ platform: "web", user: "alice", agent: "ops-agent", text: "status please" });
    const channel = h.posted[0]!.channel;
    const reply = await h.asAgent("/v1/agents/ops-agent/messages", {
      platform: "web",
      channel,
      text: "all <b>good</b>",
    });
    expect(reply.status).toBe(201);
    // Only into a conversation the agent was spoken to in.
    const elsewhere = await h.asAgent("/v1/agents/ops-agent/messages", {
      platform: "web",
      channel: "acme:sam:ops-agent",
      text: "hi",
    });
    expect(elsewhere.status).toBe(403);
    const page = (await alice.get("/agents/ops-agent")).body;
    expect(page).toContain("status please");
    expect(page).toContain("all &lt;b&gt;good&lt;/b&gt;");
    const sent = await h.ctx.store.db.webMessage.findMany({ orderBy: { id: "asc" } });
    expect(sent.map((m) => [m.author, m.text])).toEqual([
      ["alice", "status please"],
      ["ops-agent", "all <b>good</b>"],
    ]);
  });

  it("answers bad input with a clear 4xx, never a 500", async () => {
    h = await createConsoleHarness(provider, now);
    const b = h.browser();
    const token = await b.signIn("alice");
    const cases: Array<[string, Record<string, string>]> = [
      ["/agents/ops-agent/pause", { reason: "a\u0000b", _csrf: token }],
      ["/agents/ops-agent/pause", { reason: "", _csrf: token }],
      ["/agents/ops-agent/pause", { reason: "x", until: "yesterday-ish", _csrf: token }],
      ["/agents/globex-agent/pause", { reason: "x", _csrf: token }],
      ["/agents/ops-agent/card", { button: "nonsense", _csrf: token }],
      [
        "/approvals/decide",
        { run: "r1", action: "approve", version: "1e309", digest: "d", eventId: "web:abcdefgh", _csrf: token },
      ],
      ["/approvals/decide", { run: "r1", action: "launch", version: "1", digest: "d", eventId: "x", _csrf: token }],
      ["/review/reconcile", { key: "k", resolution: "delivered", note: "", _csrf: token }],
    ];
    for (const [url, form] of cases) {
      const answer = await b.post(url, form);
      expect(answer.status, `${url} ${JSON.stringify(form)}`).toBeGreaterThanOrEqual(200);
      expect(answer.status, `${url} ${JSON.stringify(form)}`).toBeLessThan(500);
    }
    expect((await b.get("/agents/globex-agent")).status).toBe(404); // another tenant's agent does not exist
    expect((await b.get("/sign-in/%00")).status).toBe(400);
    expect((await b.get("/console/..%2Fpackage.json")).status).toBe(404);
    const huge = await h.inject(
      "POST",
      "/agents/ops-agent/pause",
      `hf_session=${b.jar.get("hf_session")}`,
      `reason=${"x".repeat(70_000)}`,
    );
    expect(huge.status).toBe(413);
    const json = await h.inject(
      "POST",
      "/agents/ops-agent/pause",
      `hf_session=${b.jar.get("hf_session")}`,
      "{",
      "application/json",
    );
    expect(json.status).toBe(400);
    expect(await stateOf()).toBe("RUNNING");
  });

  it("lists what is escalating to the signed-in person on the overview, and nothing to others", async () => {
    clock = new Date();
    h = await createConsoleHarness(provider, now);
    // A wait's start is the run's row time, which the database stamps: the clock is read after the harness,
    // whose start takes seconds on a loaded machine, so that 61 s on is past the 60 s delay.
    clock = new Date();
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    const created = await createRunForAgent(h.ctx, {
      agent,
      id: "stale-1",
      operation: "send-invoice",
      destination: DESTINATION,
      packet: { invoice: 1 },
      deadline: new Date(clock.getTime() + 86_400_000),
      escalateAfterSeconds: 60,
    });
    expect(created.kind).toBe("created");
    const bob = h.browser();
    await bob.signIn("bob"); // ops-agent's secondary manager: its one default level
    expect(fromHtml((await bob.get("/")).body)).toContain("No active escalations.");
    clock = new Date(clock.getTime() + 61_000);
    const slack = recordingPlatform("slack");
    await createChatEscalationMonitor(h.ctx, { publishers: { slack }, publicUrl: "http://127.0.0.1:3000" }).tick();
    const seen = fromHtml((await bob.get("/")).body);
    const id = (await h.ctx.store.db.escalation.findFirstOrThrow()).id;
    // The overview's entry links to the Escalations page.
    expect(seen).toContain(`<a href="/escalations#${id}">approval stale-1 (ops-agent)</a> · level 1, waiting since `);
    const mia = h.browser();
    const miaToken = await mia.signIn("mia"); // a member the policy does not name
    expect(fromHtml((await mia.get("/")).body)).toContain("No active escalations.");
    // The Escalations page: what waits, on whom, the pings and where they went.
    const desk = await bob.get("/escalations");
    expect(desk.status).toBe(200);
    expect(fromHtml(desk.body)).toContain("Approval of send-invoice (run stale-1, version 1)");
    expect(fromHtml(desk.body)).toMatch(/level 1 at [^<]+ to bob: slack dm-slack-U0BOB/);
    // Refusals change nothing: another's escalation is unknown, a made-up id is a 400, no CSRF token a 403.
    const token = Browser.token(desk);
    expect((await mia.post("/escalations/ack", { _csrf: miaToken, id })).status).toBe(404);
    expect((await bob.post("/escalations/ack", { _csrf: token, id: "not-an-id" })).status).toBe(400);
    expect((await bob.post("/escalations/take-over", { id })).status).toBe(403);
    expect((await h.ctx.store.db.escalation.findFirstOrThrow()).state).toBe("open");
    // Acknowledge and Take over, through the chat buttons' handlers and in their words.
    const acked = await bob.post("/escalations/ack", { _csrf: token, id });
    expect(fromHtml(acked.body)).toContain("Acknowledged at level 1: no more reminders at this level.");
    expect(fromHtml((await bob.post("/escalations/ack", { _csrf: token, id })).body)).toContain(
      "Already acknowledged by bob",
    );
    const took = await bob.post("/escalations/take-over", { _csrf: token, id });
    expect(took.status).toBe(200);
    expect(fromHtml(took.body)).toContain("You are now a reviewer of run stale-1 (version 1)");
    expect((await h.ctx.store.db.run.findFirstOrThrow({ where: { id: "acme:stale-1" } })).reviewers).toContain(
      "acme:bob",
    );
  });
});
