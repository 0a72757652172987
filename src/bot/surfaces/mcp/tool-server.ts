import { createRequire } from "node:module";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, toApiError } from "../http/errors";
import { parseBody } from "../http/validate";
import { getStatus, listTriggers, recordCheckpointTool, registerTriggerTool } from "./agent-tools";
import { getApproval, requestApproval, updatePacket, waitForApproval } from "./approval-tools";
import type { AgentTool, ToolCall } from "./tool";
import { listedTool } from "./tool";

export const TOOLS: readonly AgentTool[] = [
  requestApproval,
  getApproval,
  waitForApproval,
  updatePacket,
  getStatus,
  recordCheckpointTool,
  registerTriggerTool,
  listTriggers,
];

const { version } = createRequire(import.meta.url)("../../../../package.json") as { version: string };

const INSTRUCTIONS =
  "Holdfast governs this agent: ask get_status before acting (a paused agent's outbound work is held), " +
  "request_approval for an action a person must approve, then wait_for_approval until it is decided " +
  "(a timeout answers state 'waiting': call again), and record_checkpoint after each step.";

/**
 * The MCP server for one request of one agent (the transport is stateless: nothing outlives the request). Built
 * on the SDK's low-level `Server` rather than `McpServer`, because `McpServer` answers bad arguments with a tool
 * result, and Holdfast answers them as the protocol's invalid-params error, validated by the HTTP route's own
 * schema with the API's words.
 */
export function toolServer(call: ToolCall): Server {
  const server = new Server({ name: "holdfast", version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS.map(listedTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new InvalidParams(new ApiError("not_found", `no tool '${request.params.name}'`, "name"));
    const args = parsedArguments(tool, request.params.arguments);
    try {
      const answer = await tool.run(call, args);
      return { content: [{ type: "text", text: answer.text }], structuredContent: answer.structured };
    } catch (error) {
      const refusal = toApiError(error);
      if (refusal.code === "internal") call.ctx.log.error({ err: error, tool: tool.name }, "tool call failed");
      const json = refusal.toJSON();
      return {
        isError: true,
        content: [{ type: "text", text: `${json.error}: ${json.message}` }],
        structuredContent: json,
      };
    }
  });
  return server;
}

/** The arguments checked by the tool's schema; a bad field is invalid params naming it, in the API's words. */
function parsedArguments(tool: AgentTool, args: unknown): unknown {
  try {
    return parseBody(tool.schema, args);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new InvalidParams(error);
  }
}

/**
 * The protocol's invalid-params error carrying the API's refusal as its data. The SDK answers any thrown error
 * with its `code`, `message` and `data`; its own `McpError` would prefix the message with "MCP error -32602".
 */
class InvalidParams extends Error {
  readonly code = ErrorCode.InvalidParams;
  readonly data: ReturnType<ApiError["toJSON"]>;
  constructor(refusal: ApiError) {
    super(refusal.message);
    this.data = refusal.toJSON();
  }
}
