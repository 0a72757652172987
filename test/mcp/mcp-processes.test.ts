import { describe, expect, it } from "vitest";
import { useBotCluster } from "../support/bot-cluster";
import { KEYS } from "../support/harness";
import { REDIS_URL } from "../support/held-harness";
import { callTool, connectAgent } from "./mcp-client";

const AGENT_KEY = "demo-key-acme-ops-agent-0007";

// Stateless MCP: the agent talks to one process while the reviewer's decision lands on another. The waiting
// process learns of it from the database (its poll), not from an in-process event it never sees.
describe("MCP across two bot processes on one PostgreSQL database", () => {
  const cluster = useBotCluster("mcp");

  it("wakes wait_for_approval on one process within a second of a decision made on the other", async () => {
    const env = { DATABASE_URL: (await cluster.database()).url, REDIS_URL, HOLDFAST_QUEUE_PREFIX: cluster.prefix };
    const [first, second] = await Promise.all([cluster.start(env), cluster.start(env)]);
    const onFirst = await connectAgent(first.url, AGENT_KEY);
    const onSecond = await connectAgent(second.url, AGENT_KEY);
    try {
      const created = await callTool(onFirst, "request_approval", {
        id: "two-processes",
        operation: "send-invoice",
        destination: "http://127.0.0.1:4000/actions",
        packet: { invoice: 42 },
        deadline: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(created.structuredContent).toMatchObject({ state: "waiting" });
      // Any process answers any call: the run created through the first is read through the second.
      const read = await callTool(onSecond, "get_approval", { id: "two-processes" });
      expect(read.structuredContent).toMatchObject({ state: "waiting", version: 1 });

      const waiting = callTool(onFirst, "wait_for_approval", { id: "two-processes", timeoutSeconds: 20 });
      await new Promise((r) => setTimeout(r, 1_200));
      const decidedAt = Date.now();
      const decided = await fetch(`${second.url}/v1/runs/two-processes/decisions`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEYS.rita}`, "content-type": "application/json" },
        body: JSON.stringify({
          eventId: "rita-two",
          action: "approve",
          version: 1,
          digest: read.structuredContent.digest,
        }),
      });
      expect(decided.status).toBe(200);
      const answer = await waiting;
      const wokeAfterMs = Date.now() - decidedAt;
      expect(answer.structuredContent).toMatchObject({ state: "approved", timedOut: false, decision: { by: "rita" } });
      expect(wokeAfterMs).toBeLessThan(1_000);
    } finally {
      await onFirst.close();
      await onSecond.close();
    }
    for (const bot of [first, second]) bot.child.kill("SIGTERM");
    expect(await Promise.all([first.exited, second.exited])).toEqual([0, 0]);
  }, 120_000);
});
