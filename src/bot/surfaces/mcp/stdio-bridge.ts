import fs from "node:fs";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface StdioBridgeEnv {
  /** The deployment, e.g. `https://holdfast.example.com` (its `/mcp` is used), or the `/mcp` URL itself. */
  HOLDFAST_URL?: string;
  HOLDFAST_AGENT_KEY?: string;
  /** A file holding the key, for a key kept out of the client's configuration. */
  HOLDFAST_AGENT_KEY_FILE?: string;
}

/** Where the bridge forwards to, with which key; a missing setting is named, since a client shows stderr only. */
export function bridgeTarget(env: StdioBridgeEnv): { url: URL; key: string } {
  if (!env.HOLDFAST_URL) throw new Error("HOLDFAST_URL is not set (the deployment's URL, e.g. http://127.0.0.1:3000)");
  const url = new URL(env.HOLDFAST_URL);
  if (!url.pathname.endsWith("/mcp")) url.pathname = `${url.pathname.replace(/\/$/, "")}/mcp`;
  const key = env.HOLDFAST_AGENT_KEY_FILE
    ? fs.readFileSync(env.HOLDFAST_AGENT_KEY_FILE, "utf8").trim()
    : env.HOLDFAST_AGENT_KEY;
  if (!key) throw new Error("HOLDFAST_AGENT_KEY (or HOLDFAST_AGENT_KEY_FILE) is not set");
  return { url, key };
}

/**
 * For MCP clients that only start local servers: every message read on stdin goes to the deployment's `/mcp`
 * (Streamable HTTP, the agent's key as the bearer), and every answer comes back on stdout. Nothing else is
 * written to stdout. A request the deployment refuses (a wrong key, the deployment down) is answered with a
 * JSON-RPC error naming why, so the client is never left waiting.
 */
export async function runStdioBridge(env: StdioBridgeEnv): Promise<{ close(): Promise<void> }> {
  const { url, key } = bridgeTarget(env);
  const remote = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const local = new StdioServerTransport();
  const close = async () => {
    await Promise.allSettled([remote.close(), local.close()]);
  };
  remote.onmessage = (message) => void local.send(message);
  remote.onerror = (error) => process.stderr.write(`holdfast-mcp: ${error.message}\n`);
  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: Error) => {
      process.stderr.write(`holdfast-mcp: ${error.message}\n`);
      if (isJSONRPCRequest(message))
        void local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: error.message } });
    });
  };
  local.onclose = () => void close();
  await remote.start();
  await local.start();
  return { close };
}
