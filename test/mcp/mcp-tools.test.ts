import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { TriggerBody } from "../../src/bot/surfaces/http/trigger-routes";
import { hashKey } from "../../src/policy/key-hash";
import { syncDirectory } from "../../src/store/directory/directory";
import { AGENT_KEY, GLOBEX_AGENT_KEY } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { EXAMPLE_CONFIG, type Harness, KEYS } from "../support/harness";
import { callTool, connectAgent, useMcpServer } from "./mcp-client";

const DESTINATION = "http://127.0.0.1:4000/actions"; // declared for ops-agent in holdfast.example.yaml
const SECOND_AGENT_KEY = "demo-key-acme-second-agent-0099";
const hourFromNow = () => new Date(Date.now() + 3_600_000).toISOString();
const request = (id: string, extra: object = {}) => ({
  id,
  operation: "send-invoice",
  destination: DESTINATION,
  packet: { invoice: { amount: 120, to: "acme-customer" } },
  deadline: hourFromNow(),
  ...extra,
});

describe.each(PROVIDERS)("MCP tools over Streamable HTTP on %s", (provider) => {
  const server = useMcpServer(provider);
  let h: Harness;
  let url: string;
  let agent: Client;
  beforeEach(async () => {
    ({ h, url } = server);
    // A second agent in the same tenant, whose runs ops-agent must not see.
    const spec = loadDirectoryFile(EXAMPLE_CONFIG);
    const acme = spec.tenants.find((t) => t.id === "acme")!;
    const ops = acme.agents.find((a) => a.name === "ops-agent")!;
    acme.agents.push({ ...ops, name: "second-agent", agentKeyHash: hashKey(SECOND_AGENT_KEY) });
    await syncDirectory(h.ctx.store, spec);
    agent = await connectAgent(url, AGENT_KEY);
    return () => agent.close();
  });

  const decide = async (id: string, action: "approve" | "deny", as: keyof typeof KEYS = "rita") => {
    const run = (await h.call("GET", `/v1/runs/${id}`, as)).json;
    const body = { eventId: `api-${id}-${action}`, action, version: run.version, digest: run.digest };
    return h.call("POST", `/v1/runs/${id}/decisions`, as, body);
  };
  const snapshot = async () => {
    const db = h.ctx.store.db;
    return { runs: await db.run.count(), outbox: await db.outboxItem.count(), triggers: await db.trigger.count() };
  };

  it("lists the eight tools with the HTTP routes' schemas", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "get_approval",
        "get_status",
        "list_triggers",
        "record_checkpoint",
        "register_trigger",
        "request_approval",
        "update_packet",
        "wait_for_approval",
      ].sort(),
    );
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
    expect(byName.request_approval).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["operation", "destination", "packet", "deadline"]),
      additionalProperties: false,
    });
    // The key names the agent: the route's `agent` field is the one thing left out.
    expect(Object.keys(byName.request_approval!.properties!)).not.toContain("agent");
    const { $schema: _dialect, ...triggerSchema } = z.toJSONSchema(TriggerBody, {
      io: "input",
      unrepresentable: "any",
    });
    expect(byName.register_trigger).toEqual(triggerSchema);
    expect(byName.wait_for_approval!.properties!.timeoutSeconds).toMatchObject({ maximum: 50, default: 30 });
  });

  it("requests an approval and wakes wait_for_approval within a second of the reviewer's decision", async () => {
    const created = await callTool(agent, "request_approval", request("mcp-approve"));
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ id: "mcp-approve", version: 1, state: "waiting" });
    expect(created.structuredContent.digest).toMatch(/^sha256:/);
    expect(created.content[0]!.text).toContain("waiting");

    const waiting = callTool(agent, "wait_for_approval", { id: "mcp-approve", timeoutSeconds: 20 });
    await new Promise((r) => setTimeout(r, 700));
    const decidedAt = Date.now();
    expect((await decide("mcp-approve", "approve")).status).toBe(200);
    const answer = await waiting;
    expect(Date.now() - decidedAt).toBeLessThan(1_000);
    expect(answer.structuredContent).toMatchObject({
      id: "mcp-approve",
      state: "approved",
      timedOut: false,
      decision: { action: "approve", by: "rita" },
    });
    const read = await callTool(agent, "get_approval", { id: "mcp-approve" });
    expect(read.structuredContent).toMatchObject({ state: "approved", decision: { by: "rita" } });
    expect(read.structuredContent.delivery).toMatchObject({ destination: DESTINATION });
    expect(read.structuredContent.packet).toEqual({ invoice: { amount: 120, to: "acme-customer" } });
  });

  it("answers a wait at its timeout with waiting, never denied; a denial is reported as denied", async () => {
    await callTool(agent, "request_approval", request("mcp-timeout"));
    const started = Date.now();
    const timedOut = await callTool(agent, "wait_for_approval", { id: "mcp-timeout", timeoutSeconds: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(timedOut.isError).toBeFalsy();
    expect(timedOut.structuredContent).toMatchObject({ state: "waiting", timedOut: true });
    expect(timedOut.structuredContent.decision).toBeUndefined();
    expect((await decide("mcp-timeout", "deny")).status).toBe(200);
    const denied = await callTool(agent, "wait_for_approval", { id: "mcp-timeout" });
    expect(denied.structuredContent).toMatchObject({ state: "denied", timedOut: false, decision: { by: "rita" } });
  });

  it("answers a wait in progress with waiting when the server shuts down, instead of holding the shutdown", async () => {
    await callTool(agent, "request_approval", request("mcp-shutdown"));
    const waiting = callTool(agent, "wait_for_approval", { id: "mcp-shutdown", timeoutSeconds: 50 });
    await new Promise((r) => setTimeout(r, 500));
    const closing = Date.now();
    await h.http.close();
    expect((await waiting).structuredContent).toMatchObject({ state: "waiting", timedOut: true });
    expect(Date.now() - closing).toBeLessThan(5_000);
  });

  it("updates the packet to a new version, and records the agent's checkpoints in order", async () => {
    await callTool(agent, "request_approval", request("mcp-packet"));
    const updated = await callTool(agent, "update_packet", { id: "mcp-packet", packet: { invoice: { amount: 99 } } });
    expect(updated.structuredContent).toMatchObject({ id: "mcp-packet", version: 2, outcome: "saved" });
    const stale = await callTool(agent, "update_packet", { id: "mcp-packet", version: 1, packet: { x: 1 } });
    expect(stale).toMatchObject({ isError: true, structuredContent: { error: "stale" } });

    const start = await callTool(agent, "record_checkpoint", { runId: "onboard-7", checkpoint: "START" });
    expect(start.structuredContent).toEqual({ id: "onboard-7", checkpoint: "START", vars: {} });
    const next = await callTool(agent, "record_checkpoint", {
      runId: "onboard-7",
      checkpoint: "WELCOME_SENT",
      set: { welcomedAt: "2026-12-01" },
    });
    expect(next.structuredContent).toEqual({
      id: "onboard-7",
      checkpoint: "WELCOME_SENT",
      vars: { welcomedAt: "2026-12-01" },
    });
    const skipped = await callTool(agent, "record_checkpoint", { runId: "onboard-7", checkpoint: "COMPLETED" });
    expect(skipped).toMatchObject({
      isError: true,
      structuredContent: { error: "invalid_transition", field: "checkpoint" },
    });
    const run = await callTool(agent, "get_approval", { id: "onboard-7" });
    expect(run.structuredContent).toMatchObject({ kind: "checkpoint", checkpoint: "WELCOME_SENT" });
  });

  it("registers and lists the agent's triggers, to declared destinations only", async () => {
    const registered = await callTool(agent, "register_trigger", {
      key: "daily-report",
      every: "1d",
      destination: DESTINATION,
    });
    expect(registered.isError).toBeFalsy();
    expect(registered.structuredContent).toMatchObject({ key: "daily-report", every: 86_400_000, misfire: "coalesce" });
    const listed = await callTool(agent, "list_triggers", {});
    expect(listed.structuredContent).toMatchObject({ items: [{ key: "daily-report" }], nextCursor: null });
    const before = await snapshot();
    const foreign = await callTool(agent, "register_trigger", {
      key: "exfiltrate",
      every: "1h",
      destination: "http://169.254.169.254/latest",
    });
    expect(foreign).toMatchObject({
      isError: true,
      structuredContent: { error: "invalid_body", field: "destination" },
    });
    expect(await snapshot()).toEqual(before);
  });

  it("refuses an undeclared destination, reviewers outside the list, and another agent's or tenant's run", async () => {
    const other = await connectAgent(url, SECOND_AGENT_KEY);
    const globex = await connectAgent(url, GLOBEX_AGENT_KEY);
    try {
      expect((await callTool(other, "request_approval", request("theirs"))).isError).toBeFalsy();
      const globexRun = request("globex-run", { destination: "http://127.0.0.1:4001/agent" });
      await callTool(globex, "request_approval", globexRun);
      const before = await snapshot();

      const undeclared = await callTool(agent, "request_approval", request("r1", { destination: "http://evil.test/" }));
      expect(undeclared).toMatchObject({
        isError: true,
        structuredContent: { error: "invalid_body", field: "destination", message: expect.any(String) },
      });
      const widened = await callTool(agent, "request_approval", request("r2", { reviewers: ["rita", "mia"] }));
      expect(widened).toMatchObject({
        isError: true,
        structuredContent: { error: "invalid_body", field: "reviewers" },
      });
      for (const id of ["theirs", "globex-run"]) {
        for (const [tool, args] of [
          ["get_approval", { id }],
          ["wait_for_approval", { id, timeoutSeconds: 0 }],
          ["update_packet", { id, packet: { taken: true } }],
        ] as const) {
          const refused = await callTool(agent, tool, args);
          expect(refused, `${tool} ${id}`).toMatchObject({ isError: true, structuredContent: { error: "not_found" } });
        }
      }
      const moved = await callTool(agent, "record_checkpoint", { runId: "theirs", checkpoint: "START" });
      expect(moved).toMatchObject({ isError: true, structuredContent: { error: "invalid_transition" } });
      expect(await snapshot()).toEqual(before);
    } finally {
      await other.close();
      await globex.close();
    }
  });

  it("answers bad arguments with invalid params naming the field, and changes nothing", async () => {
    const before = await snapshot();
    const cases: Array<[string, object, string]> = [
      ["request_approval", { ...request("bad"), deadline: "tomorrow" }, "deadline"],
      ["request_approval", { ...request("bad"), agent: "globex-agent" }, "body"],
      ["get_approval", { id: "../etc" }, "id"],
      ["wait_for_approval", { id: "x", timeoutSeconds: 120 }, "timeoutSeconds"],
      ["register_trigger", { key: "k", destination: DESTINATION }, "every"],
      ["record_checkpoint", { checkpoint: "START" }, "runId"],
      ["no_such_tool", {}, "name"],
    ];
    for (const [name, args, field] of cases) {
      const error = await agent.callTool({ name, arguments: args as Record<string, unknown> }).then(
        () => null,
        (e: { code: number; data: { field: string; error: string } }) => e,
      );
      expect(error, name).toMatchObject({ code: -32602, data: { field } });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a person's key, a wrong key and none with 401, and a foreign Origin with 403, before any tool", async () => {
    const initialize = (headers: Record<string, string>) =>
      fetch(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "request_approval", arguments: request("sneaky") },
        }),
      });
    const before = await snapshot();
    for (const key of [KEYS.alice, KEYS.ada, "not-a-key"]) {
      expect((await initialize({ authorization: `Bearer ${key}` })).status).toBe(401);
    }
    expect((await initialize({})).status).toBe(401);
    const foreign = await initialize({ authorization: `Bearer ${AGENT_KEY}`, origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: "forbidden" });
    // A rebound name pointing at this machine is not the deployment's own origin either.
    const host = new URL(url).host;
    const rebound = await initialize({
      authorization: `Bearer ${AGENT_KEY}`,
      origin: `http://evil.example:${host.split(":")[1]}`,
    });
    expect(rebound.status).toBe(403);
    expect((await initialize({ authorization: `Bearer ${AGENT_KEY}`, origin: url })).status).toBe(200);
    await expect(connectAgent(url, KEYS.rita)).rejects.toMatchObject({ code: 401, message: /unauthorized/ });
    const snap = await snapshot();
    expect(snap).toEqual({ ...before, runs: before.runs + 1 }); // only the same-origin call created its run
  });
});
