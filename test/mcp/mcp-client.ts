import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastifyInstance } from "fastify";

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
