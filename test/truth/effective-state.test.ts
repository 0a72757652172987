import { afterEach, describe, expect, it } from "vitest";
import { createChatRouter } from "../../src/bot/surfaces/chat/router";
import type { ChatTransport, Reply } from "../../src/bot/surfaces/chat/types";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const via: ChatTransport = { platform: "telegram", checkCredentials: async () => ({ ok: true, detail: "test" }) };
const TELEGRAM = { ada: "7000001", alice: "7000002", mia: "7000006" } as const;
const text = (reply: Reply) => (reply.kind === "text" ? reply.text : JSON.stringify(reply.card));

describe.each(PROVIDERS)("the effective state on %s", (provider) => {
  let h: Harness;
  afterEach(() => h.close());

  const chat = (name: "pause" | "status", who: keyof typeof TELEGRAM, args = "") =>
    createChatRouter({ ctx: h.ctx }).command(
      { name, text: args, actor: { platform: "telegram", userId: TELEGRAM[who] }, channelId: TELEGRAM[who] },
      via,
    );

  it("says a running agent is paused by the tenant-wide hold, in the control object, GET /v1/tenant and chat", async () => {
    h = await createHarness(provider, () => new Date("2026-12-01T09:00:00Z"));
    const before = await h.call("GET", "/v1/agents/ops-agent/control", "mia");
    expect(before.json.effective).toEqual({ state: "RUNNING", holdLevel: "none", by: "agent" });
    expect((await h.call("GET", "/v1/tenant", "mia")).json).toEqual({
      tenant: "acme",
      state: "RUNNING",
      holdLevel: "none",
      reason: null,
      setBy: null,
      setAt: null,
      until: null,
    });

    expect((await h.call("POST", "/v1/tenant/pause", "ada", { reason: "audit" })).status).toBe(200);
    const control = (await h.call("GET", "/v1/agents/ops-agent/control", "mia")).json;
    expect(control).toMatchObject({ state: "RUNNING", holdLevel: "none" }); // its own record
    expect(control.effective).toEqual({ state: "PAUSED", holdLevel: "admin", by: "tenant" });
    expect((await h.call("GET", "/v1/tenant", "mia")).json).toMatchObject({
      tenant: "acme",
      state: "PAUSED",
      holdLevel: "admin",
      reason: "audit",
      setBy: "ada",
      setAt: "2026-12-01T09:00:00.000Z",
    });
    expect((await h.call("GET", "/v1/tenant")).status).toBe(401);

    const status = text(await chat("status", "mia"));
    expect(status).toMatch(
      /^ops-agent is PAUSED: paused by the tenant-wide hold, set by ada since 2026-12-01 09:00 UTC\. Reason: audit\./,
    );
    expect(status).toContain("Its own record is RUNNING.");
    expect(status).not.toMatch(/^ops-agent is RUNNING/);

    // A pause reply states it too; the agent's own pause is kept apart from the tenant's.
    const paused = text(await chat("pause", "alice", "ops-agent freeze"));
    expect(paused).toContain("ops-agent stays paused by the tenant-wide hold until an admin resumes the tenant.");
    const both = (await h.call("GET", "/v1/agents/ops-agent/control", "mia")).json;
    expect(both).toMatchObject({ state: "PAUSED", holdLevel: "principal", setBy: "alice" });
    expect(both.effective).toEqual({ state: "PAUSED", holdLevel: "admin", by: "tenant" });

    await h.call("POST", "/v1/tenant/resume", "ada", {});
    const after = (await h.call("GET", "/v1/agents/ops-agent/control", "mia")).json;
    expect(after.effective).toEqual({ state: "PAUSED", holdLevel: "principal", by: "agent" });
  });
});
