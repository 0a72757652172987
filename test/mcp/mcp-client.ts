import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { Provider } from "../../src/store/connection/client";
import { createHarness, type Harness } from "../support/harness";

/** The server's base URL once it listens on a free port (the SDK's client speaks over a real socket). */
export async function listen(http: FastifyInstance): Promise<string> {
  await http.listen({ port: 0, host: "127.0.0.1" });
  const address = http.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

/** The official SDK client over Streamable HTTP, with the key in `requestInit.headers`. */
export async function connectAgent(baseUrl: string, key: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "holdfast-test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** A tool call's structured answer, typed loosely for assertions. */
export async function callTool(client: Awaited<ReturnType<typeof connectAgent>>, name: string, args: object = {}) {
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
  return result as { isError?: boolean; structuredContent: any; content: Array<{ type: string; text: string }> };
}

/**
 * The bot's HTTP server (with `/mcp`) on a fresh database of `provider`, listening on a free port, made before
 * each test (`each`) or once for the file (`all`). Its fields are set when the hook has run.
 */
export function useMcpServer(provider: Provider, scope: "each" | "all" = "each"): { h: Harness; url: string } {
  const server = {} as { h: Harness; url: string };
  (scope === "each" ? beforeEach : beforeAll)(async () => {
    server.h = await createHarness(provider);
    server.url = await listen(server.h.http);
  });
  (scope === "each" ? afterEach : afterAll)(async () => server.h?.close());
  return server;
}
