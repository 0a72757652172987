#!/usr/bin/env node
// holdfast-mcp: an MCP server on stdio that forwards to a Holdfast deployment's /mcp.
// HOLDFAST_URL names the deployment; HOLDFAST_AGENT_KEY (or HOLDFAST_AGENT_KEY_FILE) is the agent's key.
import { register } from "tsx/esm/api";

register();
const { runStdioBridge } = await import("../src/bot/surfaces/mcp/stdio-bridge.ts");
try {
  const bridge = await runStdioBridge(process.env);
  // The client closed our stdin: it is done with us.
  process.stdin.once("end", () => bridge.close().then(() => process.exit(0)));
} catch (error) {
  process.stderr.write(`holdfast-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
