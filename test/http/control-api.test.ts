import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { createHarness, type DemoUser, type Harness } from "../support/harness";

const CONTROL = "/v1/agents/ops-agent/control";
const PAUSE = "/v1/agents/ops-agent/pause";
const RESUME = "/v1/agents/ops-agent/resume";

describe.each(PROVIDERS)("control API on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider, () => new Date("2026-11-30T12:00:00Z"));
  });
  afterEach(async () => h.close());

  const snapshot = async () => ({
    control: await h.ctx.store.db.control.findMany({ orderBy: { scope: "asc" } }),
    audits: await h.ctx.store.db.controlAudit.count(),
  });

  it("returns the control object", async () => {
    const res = await h.call("GET", CONTROL, "mia");
    expect(res).toEqual({
      status: 200,
      json: {
        agent: "ops-agent",
        state: "RUNNING",
        holdLevel: "none",
        reason: null,
        setBy: null,
        setAt: null,
        until: null,
        effective: { state: "RUNNING", holdLevel: "none", by: "agent" },
      },
    });
  });

  // design.md section 3: every known user may pause, at their own hold level.
  it.each<[DemoUser, string]>([
    ["mia", "member"],
    ["rita", "member"],
    ["sam", "supervisor"],
    ["alice", "principal"],
    ["ada", "admin"],
  ])("lets %s pause, setting a %s hold", async (user, level) => {
    const res = await h.call("POST", PAUSE, user, { reason: "vacation", until: "2026-12-14T00:00:00Z" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      state: "PAUSED",
      holdLevel: level,
      reason: "vacation",
      setBy: user,
      until: "2026-12-14T00:00:00.000Z",
    });
    expect((await h.call("GET", CONTROL, "bob")).json.state).toBe("PAUSED");
  });

  // Resume of an ordinary pause and of an admin hold, per role.
  it.each<[DemoUser, DemoUser, number, string | null]>([
    ["mia", "mia", 403, "forbidden"],
    ["mia", "rita", 403, "forbidden"],
    ["mia", "sam", 403, "forbidden"],
    ["sam", "sam", 403, "forbidden"],
    ["alice", "sam", 403, "forbidden"],
    ["mia", "alice", 200, null],
    ["alice", "alice", 200, null],
    ["alice", "ada", 200, null],
    ["ada", "mia", 403, "forbidden"],
    ["ada", "sam", 403, "forbidden"],
    ["ada", "alice", 403, "creator_hold"],
    ["ada", "ada", 200, null],
  ])("after %s pauses, a resume by %s gives %i %s", async (pauser, resumer, status, error) => {
    await h.call("POST", PAUSE, pauser, { reason: "hold" });
    const before = await h.ctx.store.db.control.findUnique({ where: { scope: "agent:acme:ops-agent" } });
    const res = await h.call("POST", RESUME, resumer, {});
    expect(res.status).toBe(status);
    if (error) {
      expect(res.json.error).toBe(error);
      expect(await h.ctx.store.db.control.findUnique({ where: { scope: "agent:acme:ops-agent" } })).toEqual(before);
    } else {
      expect(res.json).toMatchObject({ state: "RUNNING", holdLevel: "none", reason: null, setBy: null });
    }
  });

  it("never lowers a hold: a principal's pause on an admin hold keeps the admin hold and reason", async () => {
    await h.call("POST", PAUSE, "ada", { reason: "incident" });
    const again = await h.call("POST", PAUSE, "alice", { reason: "vacation" });
    expect(again.json).toMatchObject({ holdLevel: "admin", reason: "incident", setBy: "ada", outcome: "kept" });
    expect((await h.call("POST", RESUME, "alice", {})).json.error).toBe("creator_hold");
  });

  it("raises a member's hold when the principal pauses", async () => {
    await h.call("POST", PAUSE, "mia", { reason: "looks odd" });
    const raised = await h.call("POST", PAUSE, "alice", { reason: "vacation" });
    expect(raised.json).toMatchObject({ holdLevel: "principal", setBy: "alice", outcome: "raised" });
  });

  it("answers 409 not_paused when resuming a running agent", async () => {
    expect(await h.call("POST", RESUME, "alice", {})).toMatchObject({ status: 409, json: { error: "not_paused" } });
  });

  describe("bad input changes nothing", () => {
    it.each<[string, () => Promise<{ status: number; json: any }>, number, string]>([
      ["no key", () => h.call("POST", PAUSE, undefined, { reason: "x" }), 401, "unauthorized"],
      [
        "an unknown key",
        () =>
          h.http
            .inject({
              method: "POST",
              url: PAUSE,
              headers: { authorization: "Bearer nope-nope-nope-nope" },
              payload: { reason: "x" },
            })
            .then((r) => ({ status: r.statusCode, json: r.json() })),
        401,
        "unauthorized",
      ],
      [
        "another tenant's agent",
        () => h.call("POST", "/v1/agents/globex-agent/pause", "alice", { reason: "x" }),
        404,
        "not_found",
      ],
      ["another tenant's user", () => h.call("POST", PAUSE, "gina", { reason: "x" }), 404, "not_found"],
      ["an unknown agent", () => h.call("GET", "/v1/agents/nobody/control", "alice"), 404, "not_found"],
      ["a missing reason", () => h.call("POST", PAUSE, "alice", {}), 400, "invalid_body"],
      ["an unknown field", () => h.call("POST", PAUSE, "alice", { reason: "x", actor: "ada" }), 400, "invalid_body"],
      ["a bad until", () => h.call("POST", PAUSE, "alice", { reason: "x", until: "tomorrow" }), 400, "invalid_body"],
      [
        "a past until",
        () => h.call("POST", PAUSE, "alice", { reason: "x", until: "2020-01-01T00:00:00Z" }),
        400,
        "invalid_body",
      ],
      ["malformed JSON", () => h.call("POST", PAUSE, "alice", '{"reason": '), 400, "invalid_json"],
      [
        "a body over 64 KiB",
        () => h.call("POST", PAUSE, "alice", { reason: "x".repeat(70_000) }),
        413,
        "payload_too_large",
      ],
    ])("%s", async (_name, send, status, error) => {
      const before = await snapshot();
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.json.error).toBe(error);
      expect(await snapshot()).toEqual(before);
    });

    it("names the bad field", async () => {
      const res = await h.call("POST", PAUSE, "alice", { reason: 42 });
      expect(res.json).toMatchObject({ error: "invalid_body", field: "reason" });
      expect(res.json.message).toMatch(/^reason: /);
    });
  });

  describe("tenant-wide pause", () => {
    it("is an admin's alone, and holds every agent of the tenant", async () => {
      expect((await h.call("POST", "/v1/tenant/pause", "alice", { reason: "x" })).status).toBe(403);
      const res = await h.call("POST", "/v1/tenant/pause", "ada", { reason: "freeze" });
      expect(res.json).toMatchObject({ tenant: "acme", state: "PAUSED", holdLevel: "admin" });
      expect((await h.call("POST", "/v1/tenant/resume", "alice", {})).status).toBe(403);
      expect((await h.call("POST", "/v1/tenant/resume", "ada", {})).json.state).toBe("RUNNING");
      expect((await h.call("POST", "/v1/tenant/resume", "ada", {})).status).toBe(409);
    });
  });
});
