import { afterEach, describe, expect, it } from "vitest";
import { createRunForAgent } from "../../src/bot/app/approvals/create-run";
import { findAgent } from "../../src/store/directory/directory";
import { type ConsoleHarness, createConsoleHarness } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";

// "\u202e00001" reads as "10000" where the text is drawn as written: the console shows the bidi control as a
// marker instead, in a packet, in an agent's chat reply and in a pause reason, as every chat card does.
const RLO = "\u202e";
const SHOWN = "⟨U+202E⟩";

describe.each(PROVIDERS)("invisible characters on the console's pages, on %s", (provider) => {
  let h: ConsoleHarness;
  afterEach(async () => h.close());

  it("shows a bidi control in a packet as a marker on the Approvals page", async () => {
    h = await createConsoleHarness(provider);
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    const created = await createRunForAgent(h.ctx, {
      agent,
      id: "r-bidi",
      operation: "pay-invoice",
      destination: "http://127.0.0.1:4000/actions",
      packet: { amount: `${RLO}00001 EUR`, evidence: [`invoice${RLO}fdp.exe`] },
      reviewers: ["rita"],
      deadline: new Date(Date.now() + 3_600_000),
    });
    expect(created.kind).toBe("created");
    const rita = h.browser();
    await rita.signIn("rita");
    const page = (await rita.get("/approvals")).body;
    expect(page).toContain(`${SHOWN}00001 EUR`);
    expect(page).toContain(`invoice${SHOWN}fdp.exe`);
    expect(page).not.toContain(RLO);
  });

  it("shows it in the agent's chat reply and in a pause reason", async () => {
    h = await createConsoleHarness(provider);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    await alice.post("/agents/ops-agent/pause", { reason: `vacation${RLO}`, _csrf: token });
    await alice.post("/agents/ops-agent/chat", { text: "total?", _csrf: token });
    const reply = await h.asAgent("/v1/agents/ops-agent/messages", {
      platform: "web",
      channel: h.posted[0]!.channel,
      text: `total ${RLO}00001`,
    });
    expect(reply.status).toBe(201);
    for (const path of ["/agents/ops-agent", "/"]) {
      const page = (await alice.get(path)).body;
      expect(page, path).toContain(`vacation${SHOWN}`);
      expect(page, path).not.toContain(RLO);
    }
    expect((await alice.get("/agents/ops-agent")).body).toContain(`total ${SHOWN}00001`);
    // The text itself is kept as written: only its display changes.
    const stored = await h.ctx.store.db.webMessage.findMany({ where: { author: "ops-agent" } });
    expect(stored.map((m) => m.text)).toEqual([`total ${RLO}00001`]);
  });
});
