import { afterEach, describe, expect, it } from "vitest";
import { createSignInPath } from "../../src/bot/app/auth/console-sessions";
import { registerDemoReceiver } from "../../src/bot/surfaces/console/demo-receiver";
import { findUserById } from "../../src/store/directory/directory";
import { type ConsoleHarness, createConsoleHarness } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";

// Every page the console draws, each error page and every API answer carries the browser's rules: no framing
// (clickjacking), no inline script, no sniffing, no referrer. The browser's own refusal to frame the console is
// proven in Chromium (framing.test.ts).
const EXPECTED = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

describe.each(PROVIDERS)("security headers on every page and door on %s", (provider) => {
  let h: ConsoleHarness;
  afterEach(async () => h?.close());

  it("sets CSP with frame-ancestors 'none', X-Frame-Options DENY, nosniff and no-referrer everywhere", async () => {
    h = await createConsoleHarness(
      provider,
      () => new Date(),
      (http, ctx) => registerDemoReceiver(http, ctx, { key: Buffer.alloc(32, 1) }).open(),
    );
    const b = h.browser();
    const alice = (await findUserById(h.ctx.store.db, "acme:alice"))!;
    const link = await createSignInPath(h.ctx, alice);
    const anonymous = [
      "/sign-in",
      link,
      "/console/console.css",
      "/console/console.js",
      "/console/nope",
      "/demo/receiver",
    ];
    const api = ["/healthz", "/openapi.json", "/v1/agents", "/no-such-route"];
    await b.signIn("alice");
    const signedIn = ["/", "/approvals", "/review", "/agents/ops-agent", "/agents/no-such-agent"];
    const seen: string[] = [];
    for (const url of [...anonymous, ...api]) seen.push(...checked(url, (await h.browser().get(url)).headers));
    for (const url of signedIn) seen.push(...checked(url, (await b.get(url)).headers));
    expect(seen).toEqual([]);
  });

  it("draws no inline script, no inline event handler and no inline style on any page", async () => {
    h = await createConsoleHarness(provider);
    const b = h.browser();
    const pages = [await b.get("/sign-in")];
    await b.signIn("alice");
    for (const url of ["/", "/approvals", "/review", "/agents/ops-agent", "/agents/nobody"])
      pages.push(await b.get(url));
    for (const page of pages) {
      expect(page.body).toContain("<html");
      for (const tag of page.body.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/console\//);
      expect(page.body).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
      expect(page.body).not.toMatch(/<[^>]+\son[a-z]+\s*=/i);
      expect(page.body).not.toMatch(/<[^>]+\sstyle\s*=/i);
      expect(page.body).not.toMatch(/<style\b/i);
    }
  });
});

/** The headers this answer lacks, as lines naming the URL (none when all are there). */
function checked(url: string, headers: Record<string, unknown>): string[] {
  const wrong: string[] = [];
  for (const [name, value] of Object.entries(EXPECTED))
    if (headers[name] !== value) wrong.push(`${url}: ${name} is ${String(headers[name])}`);
  const csp = String(headers["content-security-policy"] ?? "");
  if (!/frame-ancestors 'none'/.test(csp)) wrong.push(`${url}: CSP without frame-ancestors 'none': ${csp}`);
  if (!/script-src 'self'(;|$)/.test(csp) || /unsafe-inline/.test(csp)) wrong.push(`${url}: CSP allows inline script`);
  return wrong;
}
