import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoApp, startDemoApp } from "../support/console-app";
import { KEYS } from "../support/harness";

// Clickjacking: a page on another origin (another port of the same host) puts the signed-in console in a frame.
// The console's answers forbid it (frame-ancestors 'none', X-Frame-Options: DENY), so headless Chromium
// shows nothing of the console in the frame, and a click there reaches nothing.
describe("the console in a frame of another origin", () => {
  let demo: DemoApp;
  let context: BrowserContext;
  let profile: string;
  let attacker: http.Server;
  let attackerUrl: string;

  beforeAll(async () => {
    demo = await startDemoApp();
    attacker = http.createServer((_request, response) => {
      response.setHeader("content-type", "text/html; charset=utf-8");
      response.end(
        `<!doctype html><h1>Win a prize</h1><iframe id="victim" src="${demo.base}/agents/ops-agent"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
    profile = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await demo?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it("is refused by the browser: the frame shows nothing of the signed-in console", async () => {
    const page = context.pages()[0] ?? (await context.newPage());
    // Signed in as alice in this browser, as a victim would be.
    await page.goto(`${demo.base}/sign-in`);
    await page.getByLabel("API key").fill(KEYS.alice);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator(".who", { hasText: "alice" }).waitFor();
    // The console itself, opened directly, shows the agent page.
    await page.goto(`${demo.base}/agents/ops-agent`);
    await page.locator("h1", { hasText: "ops-agent" }).waitFor();

    const refusals: string[] = [];
    page.on("console", (message) => refusals.push(message.text()));
    const framed = await page.goto(attackerUrl);
    expect(framed?.ok()).toBe(true);
    const frameElement = await page.waitForSelector("#victim");
    // Give the frame time to load (or be refused); then read what it shows.
    await page.waitForTimeout(1_500);
    const frame = await frameElement.contentFrame();
    const shown = frame ? await frame.evaluate(() => document.body?.textContent ?? "").catch(() => "") : "";
    expect(shown).not.toContain("ops-agent");
    expect(shown).not.toContain("Pause");
    expect(await frame?.$("form")).toBeFalsy();
    expect(refusals.join("\n")).toMatch(/frame-ancestors|X-Frame-Options/);
  }, 60_000);
});
