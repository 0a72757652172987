import { z } from "zod";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent } from "../../app/records";
import type { RunWakers } from "./run-wakers";

/** What every tool call runs with: the context, the agent whose key opened the request, and a signal that ends waits. */
export interface ToolCall {
  ctx: HandlerContext;
  agent: KnownAgent;
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal;
  /** How often a waiting call re-reads a run it was not told about (a decision made by another process). */
  pollMs: number;
  /** Wakes a waiting call on its run's `run.changed` event in this process. */
  wakers: RunWakers;
}

/** A tool's success: `structured` is the same JSON as the HTTP answer; `text` one short line for a model to read. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

/**
 * One tool. `schema` is the zod schema of the HTTP route it mirrors (exported from that route), so the two cannot
 * drift; the tool's `inputSchema` is that schema's JSON Schema. Refusals are thrown as the API's `ApiError`.
 */
export interface AgentTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  schema: S;
  /** Reads only (the client may call it freely); absent: it changes something. */
  readOnly?: boolean;
  run(call: ToolCall, args: z.output<S>): Promise<ToolAnswer>;
}

/** Keeps each tool's arguments typed by its own schema while the table holds them all. */
export const defineTool = <S extends z.ZodType>(tool: AgentTool<S>): AgentTool => tool as unknown as AgentTool;

/** The tool as `tools/list` shows it: the input side of its schema (what a client sends), an object as MCP wants. */
export function listedTool(tool: AgentTool) {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" });
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: { ...inputSchema, type: "object" as const },
    annotations: { title: tool.title, readOnlyHint: tool.readOnly ?? false, openWorldHint: false },
  };
}
