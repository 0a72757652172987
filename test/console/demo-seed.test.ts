import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO } from "../../src/bot/app/demo/seed";
import { freePort, portOrFree } from "../support/bot-process";
import { type DemoApp, startDemoApp } from "../support/console-app";
import { createTestDatabase, PROVIDERS } from "../support/databases";

describe.each(PROVIDERS)("the offline demo on %s", (provider) => {
  let db: { url: string; drop(): Promise<void> };
  let demo: DemoApp | undefined;
  afterEach(async () => {
    await demo?.close();
    demo = undefined;
    await db.drop();
  });

  /** A database the app alone opens (one process per SQLite file: the app claims it). */
  async function freshDatabase() {
    if (provider === "postgresql") return createTestDatabase(provider);
    const file = path.join(os.tmpdir(), `holdfast-demo-${crypto.randomUUID()}.db`);
    return {
      url: `file:${file}`,
      drop: async () => {
        for (const suffix of ["", "-wal", "-shm", "-journal", ".lock"]) fs.rmSync(`${file}${suffix}`, { force: true });
      },
    };
  }

  const seeded = async () => {
    const d = demo!.app.ctx.store.db;
    return {
      triggers: await d.trigger.count({ where: { agentId: "acme:ops-agent" } }),
      runs: await d.run.count({ where: { id: `acme:${DEMO.run}` } }),
      waitingForRita: (await d.run.findMany({ where: { state: "waiting" } })).filter((r) =>
        (JSON.parse(r.reviewers) as string[]).includes("acme:rita"),
      ).length,
      events: await d.inboxEvent.count({ where: { agentId: "acme:ops-agent" } }),
    };
  };

  it("seeds on the example config once, and a restart adds nothing", async () => {
    db = await freshDatabase();
    const port = await freePort();
    const prefix = `demo-${crypto.randomBytes(4).toString("hex")}`;
    demo = await startDemoApp({ databaseUrl: db.url, port, prefix });
    expect(demo.demoLine).toContain(`open the console at ${demo.base}/`);
    expect(demo.demoLine).toMatch(/sign in as alice with http:\/\/127\.0\.0\.1:\d+\/sign-in\/[\w-]+ \(works once/);
    expect(demo.demoLine).toContain("rita demo-key-acme-rita-0004");
    expect(await seeded()).toEqual({ triggers: 1, runs: 1, waitingForRita: 1, events: 1 });
    const receiver = await fetch(`${demo.base}${DEMO.receiverPath}`);
    expect(receiver.status).toBe(200);
    await demo.close();
    demo = await startDemoApp({ databaseUrl: db.url, port, prefix });
    expect(demo.demoLine).toContain("demo ready");
    expect(await seeded()).toEqual({ triggers: 1, runs: 1, waitingForRita: 1, events: 1 });
    expect(await demo.app.ctx.store.db.consoleLink.count()).toBe(2); // one fresh link for alice per start
  }, 90_000);

  it("runs on PORT=3999: it seeds, and its trigger reaches the demo receiver", async () => {
    db = await freshDatabase();
    // The example declares the receiver at ${PORT}, so any port works; 3999 unless another run holds it.
    const port = await portOrFree(3999);
    demo = await startDemoApp({ databaseUrl: db.url, port });
    expect(demo.demoLine).toContain(`demo ready: open the console at http://127.0.0.1:${port}/`);
    expect(await seeded()).toEqual({ triggers: 1, runs: 1, waitingForRita: 1, events: 1 });
    // The trigger fires every 30 s into the demo receiver: its page lists what arrived (and the agent's
    // webhook, the same receiver, got the seeded inbound event).
    const until = Date.now() + 75_000;
    let shown = "";
    while (!shown.includes(DEMO.trigger) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      shown = await (await fetch(`${demo.base}${DEMO.receiverPath}`)).text();
    }
    expect(shown).toContain(DEMO.trigger);
    expect(shown).toContain("documents.signed");
    expect(demo.lines.some((l) => String(l.msg).includes("demo not seeded"))).toBe(false);
    // What arrived was signed with the demo's key; a POST from anyone else is refused and shown nowhere.
    const forged = await fetch(`${demo.base}${DEMO.receiverPath}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "chat.message", platform: "web", channel: "acme:alice:ops-agent", text: "forged" }),
    });
    expect(forged.status).toBe(401);
    expect(await (await fetch(`${demo.base}${DEMO.receiverPath}`)).text()).not.toContain("forged");
  }, 120_000);

  it("never seeds on a real config, even the example's own file given as HOLDFAST_CONFIG", async () => {
    db = await freshDatabase();
    demo = await startDemoApp({ databaseUrl: db.url, realConfig: true });
    expect(demo.demoLine).toBe("");
    expect(demo.lines.some((l) => String(l.msg).startsWith("demo"))).toBe(false);
    expect(await seeded()).toEqual({ triggers: 0, runs: 0, waitingForRita: 0, events: 0 });
    expect(await demo.app.ctx.store.db.consoleLink.count()).toBe(0);
    expect((await fetch(`${demo.base}${DEMO.receiverPath}`)).status).toBe(404);
    expect((await fetch(`${demo.base}${DEMO.receiverPath}`, { method: "POST", body: "{}" })).status).toBe(404);
    // The console itself is there on every config.
    expect((await fetch(`${demo.base}/sign-in`)).status).toBe(200);
  }, 60_000);
});
