import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { AGENT_KEY } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { useMcpServer } from "./mcp-client";

type ToolResult = { isError?: boolean; structuredContent: any };

// `npm run --silent mcp:stdio` as an MCP client starts it: a child process speaking stdio, forwarding to /mcp.
describe.each(PROVIDERS)("the stdio bridge on %s", (provider) => {
  const server = useMcpServer(provider, "all");

  const startBridge = async (env: Record<string, string>) => {
    const transport = new StdioClientTransport({
      command: "npm",
      args: ["run", "--silent", "mcp:stdio"],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-test-agent", version: "1.0.0" });
    await client.connect(transport);
    return client;
  };

  it("passes the request, approve, wait flow", async () => {
    const client = await startBridge({ HOLDFAST_URL: server.url, HOLDFAST_AGENT_KEY: AGENT_KEY });
    try {
      expect((await client.listTools()).tools).toHaveLength(8);
      const created = (await client.callTool({
        name: "request_approval",
        arguments: {
          id: "stdio-run",
          operation: "send-invoice",
          destination: "http://127.0.0.1:4000/actions",
          packet: { invoice: 5 },
          deadline: new Date(Date.now() + 3_600_000).toISOString(),
        },
      })) as ToolResult;
      expect(created.structuredContent).toMatchObject({ id: "stdio-run", state: "waiting", version: 1 });
      const waiting = client.callTool({ name: "wait_for_approval", arguments: { id: "stdio-run" } });
      await new Promise((r) => setTimeout(r, 500));
      const { version, digest } = created.structuredContent;
      const decided = await server.h.call("POST", "/v1/runs/stdio-run/decisions", "rita", {
        eventId: "stdio-approve",
        action: "approve",
        version,
        digest,
      });
      expect(decided.status).toBe(200);
      expect(((await waiting) as ToolResult).structuredContent).toMatchObject({
        state: "approved",
        decision: { by: "rita" },
      });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answers a request the deployment refuses (a person's key) with an error naming why", async () => {
    await expect(
      startBridge({ HOLDFAST_URL: server.url, HOLDFAST_AGENT_KEY: "demo-key-acme-rita-0004" }),
    ).rejects.toThrow(/unauthorized/);
  }, 60_000);
});
