import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { syncDirectory } from "../../src/store/directory/directory";
import { exampleDirectory } from "../support/agent-stand-in";
import { asAgent, createWaitingRun } from "../support/approvals";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type DemoUser, EXAMPLE_CONFIG, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";
const DEADLINE = comingDay(12);

/** The example directory plus two more agents of acme, so the agents list has pages. */
async function moreAgents(h: Harness): Promise<void> {
  const spec = await exampleDirectory(EXAMPLE_CONFIG);
  const acme = spec.tenants.find((t) => t.id === "acme")!;
  const ops = acme.agents.find((a) => a.name === "ops-agent")!;
  acme.agents.push(
    { ...ops, name: "billing-agent", agentKeyHash: undefined },
    { ...ops, name: "zeta-agent", agentKeyHash: undefined },
  );
  await syncDirectory(h.ctx.store, spec);
}

/** Every item of a list, page by page with `limit`, checking each page's size and the cursor chain. */
async function walk(h: Harness, url: string, as: DemoUser, limit: number) {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = url.includes("?") ? "&" : "?";
    const page = await h.call("GET", `${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, as);
    expect(page.status).toBe(200);
    expect(page.json.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.json.items);
    cursor = page.json.nextCursor;
    pages++;
  } while (cursor && pages < 50);
  return { items, pages };
}

describe.each(PROVIDERS)("the operator's lists on %s", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider);
    await moreAgents(h);
  });
  afterEach(async () => h.close());

  const decide = async (id: string, action: "approve" | "deny") => {
    const run = (await h.call("GET", `/v1/runs/${id}`, "rita")).json;
    const answer = await h.call("POST", `/v1/runs/${id}/decisions`, "rita", {
      eventId: `ev-${id}`,
      action,
      version: run.version,
      digest: run.digest,
    });
    expect(answer.status).toBe(200);
  };

  it("GET /v1/agents: each agent's state, effective state, hold and held counts, by name, in pages", async () => {
    expect((await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" })).status).toBe(200);
    expect((await h.call("POST", "/v1/tenant/pause", "ada", { reason: "deploy" })).status).toBe(200);
    const all = (await h.call("GET", "/v1/agents", "alice")).json;
    expect(all.nextCursor).toBeNull();
    expect(all.items.map((a: { name: string }) => a.name)).toEqual(["billing-agent", "ops-agent", "zeta-agent"]);
    const ops = all.items[1];
    expect(ops).toMatchObject({
      name: "ops-agent",
      holdLevel: "principal",
      reason: "vacation",
      setBy: "alice",
      tenantPaused: true,
      effective: expect.objectContaining({ by: "tenant" }),
      held: { occurrences: 0, occurrencesByTrigger: {}, inboundEvents: 0, outboxActions: 0, needsReview: 0 },
    });
    expect(["DRAINING", "PAUSED"]).toContain(ops.state);
    expect(all.items[0]).toMatchObject({
      name: "billing-agent",
      state: "RUNNING",
      holdLevel: "none",
      tenantPaused: true,
    });

    const paged = await walk(h, "/v1/agents", "alice", 2);
    expect(paged.pages).toBe(2);
    expect(paged.items).toEqual(all.items);
    // Another tenant sees its own agents only.
    const gina = (await h.call("GET", "/v1/agents", "gina")).json;
    expect(gina.items.map((a: { name: string }) => a.name)).toEqual(["globex-agent"]);
  });

  it("GET /v1/runs: newest first in pages, by state, agent and reviewer=me; another tenant's run is a 404", async () => {
    for (const id of ["r1", "r2", "r3", "r4", "r5"])
      await createWaitingRun(h, { id, destination: DESTINATION, deadline: DEADLINE });
    await decide("r1", "approve");
    await decide("r2", "deny");

    const all = await walk(h, "/v1/runs", "alice", 100);
    expect(all.items.map((r) => r.id).sort()).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    const times = all.items.map((r) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.items.find((r) => r.id === "r1")).toMatchObject({
      agent: "ops-agent",
      kind: "approval",
      state: "approved",
      operation: "send-invoice",
      destination: DESTINATION,
      reviewers: ["rita"],
      version: 2,
    });
    expect(all.items[0]).not.toHaveProperty("packet");

    const paged = await walk(h, "/v1/runs", "alice", 2);
    expect(paged.pages).toBe(3);
    expect(paged.items.map((r) => r.id)).toEqual(all.items.map((r) => r.id));

    const ids = async (url: string, as: DemoUser) => (await walk(h, url, as, 100)).items.map((r) => r.id).sort();
    expect(await ids("/v1/runs?state=approved", "alice")).toEqual(["r1"]);
    expect(await ids("/v1/runs?state=denied", "alice")).toEqual(["r2"]);
    expect(await ids("/v1/runs?state=waiting&agent=ops-agent", "alice")).toEqual(["r3", "r4", "r5"]);
    expect(await ids("/v1/runs?agent=billing-agent", "alice")).toEqual([]);
    expect(await ids("/v1/runs?reviewer=me", "rita")).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(await ids("/v1/runs?reviewer=me&state=waiting", "rita")).toEqual(["r3", "r4", "r5"]);
    expect(await ids("/v1/runs?reviewer=me", "alice")).toEqual([]);

    // Tenant isolation: gina lists nothing of acme's, and acme's runs and agents are not found for her.
    expect(await ids("/v1/runs", "gina")).toEqual([]);
    expect(await h.call("GET", "/v1/runs/r3", "gina")).toMatchObject({ status: 404 });
    expect(await h.call("GET", "/v1/runs?agent=ops-agent", "gina")).toMatchObject({
      status: 404,
      json: { field: "agent" },
    });
    expect(await h.call("GET", "/v1/audit?agent=ops-agent", "gina")).toMatchObject({ status: 404 });
    expect(await h.call("GET", "/v1/runs?agent=globex-agent", "alice")).toMatchObject({ status: 404 });
  });

  it("GET /v1/runs/:id: the packet for the run's reviewers, its principal, admins and the agent; not for other members", async () => {
    await createWaitingRun(h, { id: "r1", destination: DESTINATION, deadline: DEADLINE });
    const packet = { invoice: { amount: 100, to: "acme-customer" }, evidence: ["quote.pdf"] };
    for (const who of ["rita", "alice", "ada"] as const) {
      expect((await h.call("GET", "/v1/runs/r1", who)).json.packet).toEqual(packet);
    }
    expect((await asAgent(h, "GET", "/v1/runs/r1")).json.packet).toEqual(packet);
    for (const who of ["mia", "sam", "bob"] as const) {
      const seen = await h.call("GET", "/v1/runs/r1", who);
      expect(seen.status).toBe(200);
      expect(seen.json).not.toHaveProperty("packet");
      expect(seen.json.digest).toMatch(/^sha256:/);
    }
  });

  it("GET /v1/audit: pauses, resumes and decisions, newest first, by agent and since, in pages", async () => {
    await createWaitingRun(h, { id: "r1", destination: DESTINATION, deadline: DEADLINE });
    await createWaitingRun(h, { id: "r2", destination: DESTINATION, deadline: DEADLINE });
    await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    await h.call("POST", "/v1/agents/billing-agent/pause", "ada", { reason: "audit" });
    await decide("r1", "approve");
    await decide("r2", "deny");
    const refused = await h.call("POST", "/v1/agents/ops-agent/resume", "mia", {});
    expect(refused.status).toBe(403);

    const all = await walk(h, "/v1/audit", "alice", 100);
    const times = all.items.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    const find = (action: string, agent: string) => all.items.find((e) => e.action === action && e.agent === agent);
    expect(find("pause", "ops-agent")).toMatchObject({
      source: "control",
      actor: "alice",
      outcome: "paused",
      detail: { scope: "agent", reason: "vacation", holdLevel: "principal" },
    });
    expect(find("resume", "ops-agent")).toMatchObject({ actor: "mia", outcome: "forbidden" });
    expect(find("approve", "ops-agent")).toMatchObject({
      id: "decision:r1:ev-r1",
      source: "decision",
      actor: "rita",
      outcome: "approved",
      detail: { runId: "r1", eventId: "ev-r1", version: 1 },
    });
    expect(find("deny", "ops-agent")).toMatchObject({ actor: "rita", outcome: "denied", detail: { runId: "r2" } });
    expect(new Set(all.items.map((e) => e.id)).size).toBe(all.items.length);

    for (const limit of [1, 2, 3]) {
      const paged = await walk(h, "/v1/audit", "alice", limit);
      expect(paged.items.map((e) => e.id)).toEqual(all.items.map((e) => e.id));
    }
    const billing = await walk(h, "/v1/audit?agent=billing-agent", "alice", 100);
    expect(billing.items.map((e) => `${e.action}:${e.actor}`)).toEqual(["pause:ada"]);
    const latest = all.items[1].at;
    const since = await walk(h, `/v1/audit?since=${encodeURIComponent(latest)}`, "alice", 100);
    expect(since.items.length).toBeGreaterThanOrEqual(2);
    expect(since.items.every((e) => e.at >= latest)).toBe(true);
    expect((await walk(h, "/v1/audit", "gina", 100)).items).toEqual([]);
  });

  it("refuses bad input with a clear 400 (or 401), and changes nothing", async () => {
    const AT = "2026-01-01T00:00:00.000Z";
    const forged = (key: unknown) => Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
    await createWaitingRun(h, { id: "r1", destination: DESTINATION, deadline: DEADLINE });
    const runsCursor = (await h.call("GET", "/v1/runs?limit=1", "alice")).json.nextCursor;
    const bad: Array<[string, string]> = [
      ["/v1/runs?cursor=not-a-cursor", "cursor"],
      [`/v1/runs?cursor=${Buffer.from("[1,2]").toString("base64url")}`, "cursor"],
      [`/v1/audit?cursor=${runsCursor ?? Buffer.from('{"createdAt":"x","id":"r1"}').toString("base64url")}`, "cursor"],
      [`/v1/agents?cursor=${Buffer.from("{}").toString("base64url")}`, "cursor"],
      ["/v1/runs?state=bogus", "state"],
      ["/v1/runs?reviewer=rita", "reviewer"],
      ["/v1/runs?agent=ops%00agent", "agent"],
      ["/v1/runs?limit=100000000000000000000", "limit"],
      ["/v1/runs?limit=0", "limit"],
      ["/v1/audit?limit=-1", "limit"],
      ["/v1/agents?limit=abc", "limit"],
      ["/v1/audit?since=yesterday", "since"],
      ["/v1/runs?unknown=1", "query"],
      [`/v1/runs?cursor=${"x".repeat(5000)}`, "cursor"],
      // Forged cursors that decode to a key shape but could never be ours: a NUL (PostgreSQL text cannot hold
      // one) and an audit id beyond 32 bits. Both answered 500 on PostgreSQL before.
      ...["/v1/runs", "/v1/outbox", "/v1/escalations"].map((list): [string, string] => [
        `${list}?cursor=${forged({ createdAt: AT, id: "r\u0000" })}`,
        "cursor",
      ]),
      [`/v1/agents?cursor=${forged("ops\u0000agent")}`, "cursor"],
      [`/v1/audit?cursor=${forged({ at: AT, source: "control", id: 2 ** 40 })}`, "cursor"],
      [`/v1/audit?cursor=${forged({ at: AT, source: "decision", id: ["r\u0000", "e"] })}`, "cursor"],
    ];
    const before = await h.ctx.store.db.run.findMany({ orderBy: { id: "asc" } });
    for (const [url, field] of bad) {
      const answer = await h.call("GET", url, "alice");
      expect({ url, status: answer.status, error: answer.json.error }).toEqual({
        url,
        status: 400,
        error: "invalid_body",
      });
      if (field !== "query") expect(answer.json.message).toContain(field);
    }
    for (const url of ["/v1/agents", "/v1/runs", "/v1/audit"]) {
      expect(await h.call("GET", url)).toMatchObject({ status: 401, json: { error: "unauthorized" } });
      expect((await asAgent(h, "GET", url)).status).toBe(401);
    }
    expect(await h.ctx.store.db.run.findMany({ orderBy: { id: "asc" } })).toEqual(before);
  });
});
