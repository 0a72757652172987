import crypto from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createSignInPath } from "../../src/bot/app/auth/console-sessions";
import { memoryAttemptCounter } from "../../src/bot/app/auth/sign-in-limits";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { hashKey } from "../../src/policy/key-hash";
import { LINKS_PER_USER, SESSIONS_PER_USER, SIGN_INS_PER_USER } from "../../src/policy/sign-in-limits";
import { redisAttemptCounter } from "../../src/queue/attempt-counter";
import { findUserById, syncDirectory } from "../../src/store/directory/directory";
import { Browser, type ConsoleHarness, createConsoleHarness } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";
import { EXAMPLE_CONFIG, KEYS } from "../support/harness";
import { REDIS_URL } from "../support/held-harness";

describe.each(PROVIDERS)("console sign-in limits and sessions on %s", (provider) => {
  let h: ConsoleHarness;
  afterEach(async () => h?.close());
  // One instant for the whole test: the counts' minute never turns over halfway through.
  const at = new Date();
  const now = () => at;
  const sessionsOf = (user: string) => h.ctx.store.db.consoleSession.count({ where: { userId: user } });

  it("answers the 101st wrong sign-in from one address in a minute with 429, even with a right key then", async () => {
    h = await createConsoleHarness(provider, now);
    const b = h.browser();
    const token = Browser.token(await b.get("/sign-in"));
    for (let n = 1; n <= 100; n++)
      expect((await b.post("/sign-in", { _csrf: token, key: `wrong-${n}` })).status).toBe(401);
    const throttled = await b.post("/sign-in", { _csrf: token, key: "wrong-101" });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers["retry-after"])).toBeGreaterThan(0);
    expect(throttled.body).toContain("Too many sign-in attempts in the last minute");
    // Past the limit no key is looked at: the right one is refused too, and no session opens.
    expect((await b.post("/sign-in", { _csrf: token, key: KEYS.alice })).status).toBe(429);
    expect(await h.ctx.store.db.consoleSession.count()).toBe(0);
  });

  it("limits sign-ins per user, keeps at most SESSIONS_PER_USER sessions, and ends the oldest first", async () => {
    h = await createConsoleHarness(provider, now);
    const browsers: Browser[] = [];
    for (let n = 0; n < SESSIONS_PER_USER + 1; n++) {
      const b = h.browser();
      await b.signIn("alice");
      browsers.push(b);
    }
    expect(await sessionsOf("acme:alice")).toBe(SESSIONS_PER_USER);
    expect((await browsers[0]!.get("/")).status).toBe(303); // the oldest: signed out
    expect((await browsers[SESSIONS_PER_USER]!.get("/")).status).toBe(200);
    expect((await browsers[1]!.get("/")).status).toBe(200);
    for (let n = SESSIONS_PER_USER + 1; n < SIGN_INS_PER_USER; n++) await h.browser().signIn("alice");
    const b = h.browser();
    const refused = await b.post("/sign-in", { _csrf: Browser.token(await b.get("/sign-in")), key: KEYS.alice });
    expect(refused.status).toBe(429);
    // Another user is counted apart.
    expect(await h.browser().signIn("bob")).not.toBe("");
  });

  it("keeps at most LINKS_PER_USER unused one-time links per user: the oldest stops working", async () => {
    let ms = at.getTime();
    const stepping = () => {
      ms += 1000; // each link a second after the last
      return new Date(ms);
    };
    h = await createConsoleHarness(provider, stepping);
    const alice = (await findUserById(h.ctx.store.db, "acme:alice"))!;
    const links: string[] = [];
    for (let n = 0; n < LINKS_PER_USER + 1; n++) links.push(await createSignInPath(h.ctx, alice));
    expect(await h.ctx.store.db.consoleLink.count({ where: { userId: alice.id } })).toBe(LINKS_PER_USER);
    expect((await h.browser().useLink(links[0]!)).status).toBe(410);
    expect((await h.browser().useLink(links[1]!)).status).toBe(303);
  });

  it("ends every session and link of a user whose key changed, at the directory's next sync; others stay", async () => {
    h = await createConsoleHarness(provider, now);
    const alice = h.browser();
    await alice.signIn("alice");
    const bob = h.browser();
    await bob.signIn("bob");
    const link = await createSignInPath(h.ctx, (await findUserById(h.ctx.store.db, "acme:alice"))!);
    // The same directory again changes nothing.
    await syncDirectory(h.ctx.store, loadDirectoryFile(EXAMPLE_CONFIG));
    expect((await alice.get("/")).status).toBe(200);
    const changed = loadDirectoryFile(EXAMPLE_CONFIG);
    const entry = changed.tenants.find((t) => t.id === "acme")!.users.find((u) => u.name === "alice")!;
    entry.apiKeyHash = hashKey(`new-key-${crypto.randomUUID()}`);
    await syncDirectory(h.ctx.store, changed);
    expect((await alice.get("/")).status).toBe(303);
    expect(await sessionsOf("acme:alice")).toBe(0);
    expect((await h.browser().useLink(link)).status).toBe(410);
    expect((await bob.get("/")).status).toBe(200);
  });

  it("'Sign out everywhere' ends the user's sessions in every browser, and no one else's", async () => {
    h = await createConsoleHarness(provider, now);
    const here = h.browser();
    const token = await here.signIn("alice");
    const there = h.browser();
    await there.signIn("alice");
    const bob = h.browser();
    await bob.signIn("bob");
    const page = await here.get("/");
    expect(page.body).toContain('formaction="/sign-out/everywhere"');
    // Without the form's token: refused, nothing ended.
    expect((await there.post("/sign-out/everywhere", {})).status).toBe(403);
    expect(await sessionsOf("acme:alice")).toBe(2);
    const answer = await here.post("/sign-out/everywhere", { _csrf: token });
    expect(answer).toMatchObject({ status: 303, location: "/sign-in" });
    expect((await here.get("/")).status).toBe(303);
    expect((await there.get("/")).status).toBe(303);
    expect(await sessionsOf("acme:alice")).toBe(0);
    expect((await bob.get("/")).status).toBe(200);
  });
});

describe("the sign-in counter shared by processes (Redis)", () => {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  afterAll(() => client.quit());

  it("counts one key across two processes' counters on the same prefix, and apart on another", async () => {
    const prefix = `hf-attempts-${crypto.randomUUID().slice(0, 8)}`;
    const one = redisAttemptCounter(client, prefix, memoryAttemptCounter());
    const two = redisAttemptCounter(client, prefix, memoryAttemptCounter());
    expect(await one.hit("k", 60_000)).toBe(1);
    expect(await two.hit("k", 60_000)).toBe(2);
    expect(await one.hit("k", 60_000)).toBe(3);
    expect(await redisAttemptCounter(client, `${prefix}-b`, memoryAttemptCounter()).hit("k", 60_000)).toBe(1);
    expect(await client.pttl(`${prefix}:attempts:k`)).toBeGreaterThan(50_000);
    await client.del(`${prefix}:attempts:k`, `${prefix}-b:attempts:k`);
  });

  it("counts in memory when Redis does not answer, without waiting on it", async () => {
    const away = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: null,
      retryStrategy: () => 50,
    });
    away.on("error", () => {});
    const counter = redisAttemptCounter(away, "hf-away", memoryAttemptCounter());
    const started = Date.now();
    expect(await counter.hit("k", 60_000)).toBe(1);
    expect(await counter.hit("k", 60_000)).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
    away.disconnect();
  });
});
