import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../src/bot/app/demo/seed";
import { refusalText } from "../../src/bot/surfaces/chat/refusals";
import { findRun } from "../../src/store/approvals/runs";
import { portOrFree } from "../support/bot-process";
import { type DemoApp, plantNeedsReview, startDemoApp } from "../support/console-app";
import { KEYS } from "../support/harness";

// The console in headless Chromium against the real app on the example config, as `npm start` runs it
// (one database, SQLite: the same flows run on both databases at the handler level, console-http.test.ts).
// The steps run in order on one page: approve before the pause, then pause, chat, review, resume.

// The README's screenshots are refreshed on purpose (`npm run screenshots` sets HOLDFAST_SCREENSHOTS_DIR); an ordinary run
// writes its pictures to a temporary folder, so `npm test` leaves the checkout as it found it.
const SHOTS = process.env.HOLDFAST_SCREENSHOTS_DIR
  ? path.resolve(process.env.HOLDFAST_SCREENSHOTS_DIR)
  : fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-shots-"));
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Waits until the element holds the text (playwright-core has no expect of its own). */
async function sees(locator: Locator, text: string | RegExp, timeout?: number): Promise<void> {
  await locator
    .filter({ hasText: text })
    .first()
    .waitFor({ timeout })
    .catch(async (error: Error) => {
      const shown = await locator
        .first()
        .textContent()
        .catch(() => "(nothing)");
      throw new Error(`expected ${String(text)} in: ${shown?.slice(0, 1500)}\n${error.message.split("\n")[0]}`);
    });
}

describe("the console in headless Chromium", () => {
  let demo: DemoApp;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const main = () => page.locator("main");
  async function signInWithKey(user: keyof typeof KEYS) {
    await context.clearCookies();
    await page.goto(`${demo.base}/sign-in`);
    await page.getByLabel("API key").fill(KEYS[user]);
    await page.getByRole("button", { name: "Sign in" }).click();
    await sees(page.locator(".who"), user);
  }
  /** Reloads the demo receiver's page until it shows `text` (deliveries run on their own loop). */
  async function receiverShows(text: string, timeoutMs = 20_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await page.goto(`${demo.base}${DEMO.receiverPath}`);
      if ((await main().textContent())?.includes(text) || Date.now() > until) break;
      await page.waitForTimeout(500);
    }
    await sees(main(), text);
  }

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    // The monitor ticks every second, so the escalation step below does not wait 30 s for its ping.
    // On PORT=3999 (a port other than the default, as a newcomer's machine often needs), unless it is taken.
    demo = await startDemoApp({ port: await portOrFree(3999), env: { HOLDFAST_MONITOR_INTERVAL: "1s" } });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 800 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await demo?.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });

  it("signs in with the one-time link from the start line, once", async () => {
    const link = /(http:\/\/\S+\/sign-in\/[\w-]+)/.exec(demo.demoLine)?.[1];
    expect(link).toBeTruthy();
    await page.goto(link!);
    await page.getByRole("button", { name: "Sign in with this link" }).click();
    await sees(page.locator("h1"), "Overview");
    await sees(page.locator(".who"), "alice");
    await sees(main(), "ops-agent");
    await shot("01-overview");
    await page.setViewportSize({ width: 390, height: 844 });
    await shot("02-overview-phone");
    await page.setViewportSize({ width: 1280, height: 800 });
    await context.clearCookies();
    await page.goto(link!);
    await page.getByRole("button", { name: "Sign in with this link" }).click();
    await sees(main(), "already used");
  }, 30_000);

  it("shows a member who is no reviewer the waiting run on the Approvals page, but not its packet", async () => {
    await signInWithKey("mia");
    await page.goto(`${demo.base}/approvals`);
    const card = page.locator("article", { hasText: "send-welcome-email" });
    const run = (await findRun(demo.app.ctx.store.db, `acme:${DEMO.run}`))!;
    await sees(card, run.digest); // the run and its digest are listed
    const shown = (await card.textContent()) ?? "";
    for (const packet of ["offer-letter-signed.pdf", "new.hire@example.com", "Welcome to Acme", "HR-1042"])
      expect(shown).not.toContain(packet);
    expect(await card.getByRole("button", { name: "Approve" }).count()).toBe(0);
  }, 30_000);

  it("approves the waiting run as rita, and its delivery arrives at the demo receiver", async () => {
    await signInWithKey("rita");
    await page.goto(`${demo.base}/approvals`);
    const card = page.locator("article", { hasText: "send-welcome-email" });
    await sees(card, "offer-letter-signed.pdf"); // the evidence, apart
    const run = (await findRun(demo.app.ctx.store.db, `acme:${DEMO.run}`))!;
    await sees(card, run.digest); // the full digest
    await sees(card, "left");
    await shot("03-approvals");
    await card.getByRole("button", { name: "Approve" }).click();
    await sees(main(), "Approved send-welcome-email (version 1). The action is queued.");
    await sees(main(), "Approved by rita");
    await receiverShows("action send-welcome-email");
    await shot("04-demo-receiver");
  }, 40_000);

  it("pauses ops-agent with 'vacation', then a trigger's due time is held", async () => {
    await signInWithKey("alice");
    await page.goto(`${demo.base}/agents/ops-agent`);
    // With the keyboard: type the reason, Enter submits.
    await page.getByLabel("Reason").fill("vacation");
    await page.getByLabel("Reason").press("Enter");
    await sees(main(), "ops-agent is paused by alice (a principal hold): vacation.");
    await sees(page.locator('[data-live="audit"] tr', { hasText: "pause" }), /alice\s*paused\s*vacation/);
    // The next due time passes while paused (every 30 s): live updates show it held, without a reload.
    await sees(page.locator(`tr[data-trigger="${DEMO.trigger}"]`), "held ×1", 40_000);
    await shot("05-agent-paused");
    // At phone width the triggers table is read row by row: nothing past the edge, a date on one line.
    await page.setViewportSize({ width: 390, height: 844 });
    const row = page.locator(`tr[data-trigger="${DEMO.trigger}"]`);
    const rowBox = (await row.boundingBox())!;
    expect(rowBox.x + rowBox.width).toBeLessThanOrEqual(390);
    const lineHeight = await row
      .locator(".when")
      .first()
      .evaluate((e) => Number.parseFloat(getComputedStyle(e).lineHeight));
    expect((await row.locator(".when").first().boundingBox())!.height).toBeLessThan(lineHeight * 1.5);
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);

  it("reaches the agent through the web chat while it is paused", async () => {
    await page.getByLabel("Message").fill("Are the welcome documents out?");
    await page.getByRole("button", { name: "Send" }).click();
    const chat = page.locator(".chat");
    await sees(chat, "Are the welcome documents out?");
    await sees(chat, "Demo ops-agent here: I got “Are the welcome documents out?”");
    await shot("06-web-chat");
  }, 30_000);

  it("refuses a member's Resume in the same words as chat", async () => {
    await signInWithKey("mia");
    await page.goto(`${demo.base}/agents/ops-agent`);
    await page.getByRole("button", { name: /Resume/ }).click();
    const words = refusalText({ code: "forbidden", agent: "ops-agent" }, "slack");
    await sees(page.locator(".note.refused"), words);
    expect(await page.locator(".note.refused").textContent()).toBe(words);
    await shot("07-member-resume-refused");
  }, 30_000);

  it("shows a NEEDS_REVIEW item's three facts and reconciles it", async () => {
    const run = (await findRun(demo.app.ctx.store.db, `acme:${DEMO.run}`))!;
    const key = `${run.id}:1:send-welcome-email:earlier-attempt`;
    await plantNeedsReview(demo.app, { id: key, runId: run.id, digest: run.digest, destination: run.destination });
    await signInWithKey("alice");
    await page.goto(`${demo.base}/review`);
    const item = page.locator("article", { hasText: key });
    await sees(item.locator("section", { hasText: "Intended" }), run.digest);
    await sees(item.locator("section", { hasText: "Intended" }), "rita");
    await sees(item.locator("section", { hasText: "Intended" }), "offer-letter-signed.pdf"); // alice sees the packet
    await sees(item.locator("section", { hasText: "Known" }), "the outcome is unknown");
    await sees(item.locator("section", { hasText: "Known" }), run.destination);
    await sees(item.locator("section", { hasText: "Next" }), "Send again");
    await shot("08-needs-review");
    await item.getByLabel(/Note/).fill("checked the demo receiver: it arrived");
    await item.getByRole("button", { name: "Mark delivered" }).click();
    await sees(main(), `Mark delivered: ${key} is now ACKNOWLEDGED.`);
    await sees(main(), "Nothing needs review.");
  }, 30_000);

  it("resumes through the preflight as alice, and the held work is released", async () => {
    await page.goto(`${demo.base}/agents/ops-agent`);
    await page.getByRole("button", { name: /Resume/ }).click();
    const card = page.locator("article", { hasText: "Resume ops-agent?" });
    await sees(card, "Paused by alice");
    await sees(card, /Held trigger occurrences: [1-9]/);
    await sees(card, "alice (principal)");
    await sees(card, "On resume: will send");
    await shot("09-resume-preflight");
    await card.getByRole("button", { name: "Confirm resume" }).click();
    await sees(main(), "ops-agent resumed.");
    await sees(page.locator(".card .footer"), "Resumed by alice");
    // Running again at once: what the release is still marking is not shown as held.
    expect(await page.locator(`tr[data-trigger="${DEMO.trigger}"]`).textContent()).not.toContain("held ×");
    await shot("10-resumed");
    await receiverShows(`${DEMO.trigger}:release:`); // the coalesced delivery of the held occurrences
  }, 40_000);

  it("bob acknowledges and takes over an escalation from the console", async () => {
    // The agent asks for an approval that escalates after 1 s to its secondary manager, bob.
    const created = await fetch(`${demo.base}/v1/runs`, {
      method: "POST",
      headers: { authorization: "Bearer demo-key-acme-ops-agent-0007", "content-type": "application/json" },
      body: JSON.stringify({
        id: "invoice-42",
        agent: "ops-agent",
        operation: "send-invoice",
        destination: `${demo.base}${DEMO.receiverPath}`,
        packet: { invoice: 42, amount: "1,200 EUR" },
        deadline: new Date(Date.now() + 24 * 3600_000).toISOString(),
        escalateAfter: "1s",
      }),
    });
    expect(created.status).toBe(201);
    await signInWithKey("bob");
    // The overview's entry appears with the ping (live updates) and links to the Escalations page.
    const entry = page.locator("#active-escalations a", { hasText: "invoice-42" });
    await entry.waitFor({ timeout: 20_000 });
    await entry.click();
    await sees(page.locator("h1"), "Escalations");
    const card = page.locator("article.escalation", { hasText: "invoice-42" });
    await sees(card, "An approval waits (ops-agent)");
    await sees(card, "rita"); // on whom it waits
    await sees(card, "level 1 at");
    await sees(card, "no chat platform: shown in the console only");
    await shot("11-escalations");
    await card.getByRole("button", { name: "Acknowledge" }).click();
    await sees(page.locator(".note.ok"), "Acknowledged at level 1: no more reminders at this level.");
    await sees(card, "Acknowledged by bob");
    await card.getByRole("button", { name: "Take over" }).click();
    await sees(page.locator(".note.ok"), "You are now a reviewer of run invoice-42 (version 1)");
    // bob now decides it as any reviewer does.
    await page.goto(`${demo.base}/approvals`);
    const approval = page.locator("article", { hasText: "send-invoice" });
    await sees(approval, "bob");
    await approval.getByRole("button", { name: "Approve" }).waitFor();
  }, 60_000);
});
