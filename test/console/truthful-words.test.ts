import { afterEach, describe, expect, it } from "vitest";
import { createRunForAgent } from "../../src/bot/app/approvals/create-run";
import { registerTrigger } from "../../src/bot/app/held/triggers";
import { unknownOutcomeText } from "../../src/policy/delivery-class";
import { findAgent } from "../../src/store/directory/directory";
import { planDelivery } from "../../src/store/outbox/plan";
import { type ConsoleHarness, createConsoleHarness, fromHtml } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";

// The console says what is true, in words a person reads as written: an unknown page is a page, not JSON;
// the icon is there; a refusal's words carry no markdown a browser shows raw.
const PAGE = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

describe.each(PROVIDERS)("the console's words and pages on %s", (provider) => {
  let h: ConsoleHarness;
  afterEach(async () => h.close());

  it("answers an unknown page with an HTML 404 that keeps the navigation; the API's unknown routes stay JSON", async () => {
    h = await createConsoleHarness(provider);
    const alice = h.browser();
    await alice.signIn("alice");
    const page = await alice.get("/escalationz", PAGE);
    expect(page.status).toBe(404);
    expect(String(page.headers["content-type"])).toMatch(/^text\/html/);
    expect(page.body).toContain("There is no such page in the console.");
    for (const link of ["/approvals", "/review", "/escalations"]) expect(page.body).toContain(`href="${link}"`);
    const anonymous = await h.browser().get("/escalationz", PAGE);
    expect(anonymous.status).toBe(404);
    expect(anonymous.body).toContain("There is no such page in the console.");
    for (const [url, headers] of [
      ["/v1/nope", PAGE],
      ["/escalationz", {}],
    ] as const) {
      const api = await alice.get(url, headers);
      expect(api.status).toBe(404);
      expect(JSON.parse(api.body)).toMatchObject({ error: "not_found" });
    }
  });

  it("serves its icon and links it from every page, so no page asks for a missing favicon", async () => {
    h = await createConsoleHarness(provider);
    const icon = await h.browser().get("/console/favicon.svg");
    expect(icon.status).toBe(200);
    expect(String(icon.headers["content-type"])).toMatch(/^image\/svg\+xml/);
    expect((await h.browser().get("/sign-in")).body).toContain('<link rel="icon" href="/console/favicon.svg"');
    const old = await h.browser().get("/favicon.ico", { accept: "image/*" });
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe("/console/favicon.svg");
  });

  it("says a 15-minute cadence as 'every 15 min' on the agent's page", async () => {
    h = await createConsoleHarness(provider);
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    await registerTrigger(h.ctx, agent, {
      key: "daily-report",
      everyMs: 900_000,
      cron: null,
      tz: null,
      payload: { report: "daily" },
      destination: "http://127.0.0.1:4000/actions",
      misfire: "coalesce",
    });
    const alice = h.browser();
    await alice.signIn("alice");
    const page = (await alice.get("/agents/ops-agent")).body;
    expect(page).toContain("every 15 min");
    expect(page).not.toContain("900 s");
  });

  it("audits a refused console Resume as a console action, not as a chat command", async () => {
    h = await createConsoleHarness(provider);
    const alice = h.browser();
    await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: await alice.signIn("alice") });
    const mia = h.browser();
    await mia.post("/agents/ops-agent/resume", { _csrf: await mia.signIn("mia") });
    const refused = await h.ctx.store.db.controlAudit.findMany({ where: { action: "resume", outcome: "forbidden" } });
    expect(refused.map((a) => a.reason)).toEqual(["console Resume"]);
    expect((await alice.get("/agents/ops-agent")).body).not.toContain("chat /resume");
  });

  it("says an approved action is held while its agent is paused, and the settled card keeps the decided version", async () => {
    h = await createConsoleHarness(provider);
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    for (const id of ["r-paused", "r-running"])
      await createRunForAgent(h.ctx, {
        agent,
        id,
        operation: `send-${id}`,
        destination: "http://127.0.0.1:4000/actions",
        packet: { n: 1 },
        reviewers: ["rita"],
        deadline: new Date(Date.now() + 3_600_000),
      });
    const rita = h.browser();
    const token = await rita.signIn("rita");
    const decide = async (run: string) => {
      const page = (await rita.get("/approvals")).body;
      const form = page.slice(page.indexOf(`name="run" value="${run}"`));
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
      const answer = await rita.post("/approvals/decide", {
        run,
        version: field("version"),
        digest: field("digest"),
        eventId: field("eventId"),
        action: "approve",
        _csrf: token,
      });
      return fromHtml(/<p class="note ok"[^>]*>([^<]*)<\/p>/.exec(answer.body)?.[1] ?? answer.body.slice(0, 300));
    };
    expect(await decide("r-running")).toBe("Approved send-r-running (version 1). The action is queued. (approved)");
    const alice = h.browser();
    await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: await alice.signIn("alice") });
    expect(await decide("r-paused")).toBe(
      "Approved send-r-paused (version 1). The action is held while the agent is paused; it goes out when the agent resumes. (approved)",
    );
    const settled = (await rita.get("/approvals")).body;
    for (const run of ["send-r-paused", "send-r-running"]) {
      const card = settled.slice(settled.indexOf(`${run} for ops-agent`));
      expect(/<dt>Version<\/dt><dd>(\d+)<\/dd>/.exec(card)?.[1], run).toBe("1");
    }
  });

  /** An action of ops-agent that failed two attempts and waits a minute for its next one. */
  async function planRetriedAction() {
    const base = { kind: "action" as const, tenantId: "acme", agentId: "acme:ops-agent", contract: "none" };
    const destination = "http://127.0.0.1:4000/actions";
    await planDelivery(h.ctx.store, { ...base, id: "retried", destination, payload: { n: 1 } }, new Date());
    await h.ctx.store.db.outboxItem.update({
      where: { id: "retried" },
      data: { attempts: 2, lastResult: "HTTP 503", nextAttemptAt: new Date(Date.now() + 60_000) },
    });
  }

  it("counts an item waiting for its next attempt as retrying, not held, while the agent runs", async () => {
    h = await createConsoleHarness(provider);
    await planRetriedAction();
    const alice = h.browser();
    await alice.signIn("alice");
    const agentPage = fromHtml((await alice.get("/agents/ops-agent")).body);
    expect(agentPage).toContain("Held outbound actions: 0");
    expect(agentPage).toContain("Outbound actions retrying after a failed attempt: 1");
    const overview = fromHtml((await alice.get("/")).body);
    expect(overview).toMatch(/retrying\D{0,40}1/);
  });

  it("counts the same item as held while a pause holds the agent: its next attempt waits for the resume", async () => {
    h = await createConsoleHarness(provider);
    await planRetriedAction();
    const alice = h.browser();
    const csrf = await alice.signIn("alice");
    expect((await alice.post("/agents/ops-agent/pause", { reason: "vacation", _csrf: csrf })).status).toBe(200);
    const agentPage = fromHtml((await alice.get("/agents/ops-agent")).body);
    expect(agentPage).toContain("Held outbound actions: 1");
    expect(agentPage).not.toContain("retrying after a failed attempt");
  });

  it("says a review item's result once: the attempt and its time stand apart", async () => {
    h = await createConsoleHarness(provider);
    const base = { kind: "action" as const, tenantId: "acme", agentId: "acme:ops-agent", contract: "key-retained 24h" };
    const destination = "http://127.0.0.1:4000/actions";
    await planDelivery(h.ctx.store, { ...base, id: "unknown-1", destination, payload: { n: 1 } }, new Date());
    const at = new Date("2026-12-01T14:36:00Z");
    await h.ctx.store.db.outboxItem.update({
      where: { id: "unknown-1" },
      data: {
        state: "NEEDS_REVIEW",
        attempts: 1,
        lastAttemptAt: at,
        lastResult: unknownOutcomeText(1, at, "no answer within 10000 ms", "key-retained 24h"),
      },
    });
    const alice = h.browser();
    await alice.signIn("alice");
    const page = fromHtml((await alice.get("/review")).body);
    expect(page).toMatch(/<dt>Result<\/dt><dd>no answer within 10000 ms<\/dd>/);
    expect(page).not.toContain("outcome unknown after attempt");
  });

  it("shows a refused until without raw backticks", async () => {
    h = await createConsoleHarness(provider);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    const answer = await alice.post("/agents/ops-agent/pause", { reason: "vacation", until: "soonish", _csrf: token });
    const flash = /<p class="note refused"[^>]*>([^<]*)<\/p>/.exec(answer.body)?.[1] ?? "";
    expect(fromHtml(flash)).toContain("I couldn't read the time after “until”.");
    expect(flash).not.toContain("`");
  });
});
