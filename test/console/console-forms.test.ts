import { afterEach, describe, expect, it } from "vitest";
import { refusalText } from "../../src/bot/surfaces/chat/refusals";
import { agentScope } from "../../src/policy/ids";
import { readControl } from "../../src/store/control/change";
import type { ConsoleHarness } from "../support/console-harness";
import { createConsoleHarness, fromHtml } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";

// The console's pause form calls the pause use case with its fields as they are (no chat command text made and
// parsed again), and answers in chat's words, refusals included.
const OPS = agentScope("acme:ops-agent");

describe.each(PROVIDERS)("the console's pause form on %s", (provider) => {
  let h: ConsoleHarness;
  const clock = new Date("2026-12-01T09:00:00Z");
  afterEach(async () => h.close());

  it("takes the reason as typed: words that chat would read as a duration stay in the reason", async () => {
    h = await createConsoleHarness(provider, () => clock);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    const paused = await alice.post("/agents/ops-agent/pause", { reason: "deploy until 2h", _csrf: token });
    expect(paused.status).toBe(200);
    expect(fromHtml(paused.body)).toContain("ops-agent is paused by alice (a principal hold): deploy until 2h.");
    const control = (await readControl(h.ctx.store.db, OPS))!;
    expect(control.reason).toBe("deploy until 2h");
    expect(control.until).toBeNull();
  });

  it("sets the automatic resume from the until field, and refuses a past one in chat's words", async () => {
    h = await createConsoleHarness(provider, () => clock);
    const alice = h.browser();
    const token = await alice.signIn("alice");
    const past = await alice.post("/agents/ops-agent/pause", { reason: "vacation", until: "2026-11-30", _csrf: token });
    expect(fromHtml(past.body)).toContain(refusalText({ code: "until_in_past", agent: "ops-agent" }, "web"));
    expect((await readControl(h.ctx.store.db, OPS))!.state).toBe("RUNNING");
    const later = await alice.post("/agents/ops-agent/pause", { reason: "vacation", until: "2h", _csrf: token });
    expect(fromHtml(later.body)).toContain("Automatic resume at");
    expect((await readControl(h.ctx.store.db, OPS))!.until).toEqual(new Date("2026-12-01T11:00:00Z"));
  });
});
