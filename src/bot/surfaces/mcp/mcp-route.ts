import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HandlerContext } from "../../app/context";
import { ApiError } from "../http/errors";
import { defineRoute } from "../http/route";
import { PACKET_ROUTE_BODY_LIMIT } from "../http/run-routes";
import { isAllowedOrigin } from "./origin";
import { RunWakers } from "./run-wakers";

export interface McpRouteOptions {
  /** HOLDFAST_PUBLIC_URL: the deployment's own origin, which a browser page may call `/mcp` from. */
  publicUrl?: string;
  /** How often a waiting call re-reads its run, for a decision made by another process. Default 500 ms. */
  pollMs?: number;
}

const MCP_URL = "/mcp";
/** A request carrying a packet, plus the JSON-RPC envelope around it. */
const MCP_BODY_LIMIT = PACKET_ROUTE_BODY_LIMIT + 16 * 1024;
/** One JSON-RPC message; the SDK's transport checks the rest (the method, the id, the params). */
const JsonRpcMessage = z.looseObject({ jsonrpc: z.literal("2.0") });
const DESCRIPTION =
  "The Model Context Protocol over Streamable HTTP, stateless (no session: any process answers any call), JSON " +
  "responses. Send `Accept: application/json, text/event-stream`. The tools act as the agent whose key this is. " +
  "A browser Origin other than the deployment's own is refused (403).";

/** The MCP SDK is loaded with the first call: it is about 25 MB of a bot that no agent calls over MCP. */
const mcpServer = async () => {
  const [{ StreamableHTTPServerTransport }, { toolServer }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("./tool-server"),
  ]);
  return { StreamableHTTPServerTransport, toolServer };
};

/**
 * `/mcp`: a new MCP server and transport per request, so nothing outlives the request. Before any tool runs:
 * the Origin (403, an onRequest hook, so even before the key) and the agent's key (401, as every agent route).
 */
export function registerMcpRoute(app: FastifyInstance, ctx: HandlerContext, options: McpRouteOptions = {}): void {
  const wakers = new RunWakers(ctx.events);
  const open = new Map<AbortController, ServerResponse>();
  // A wait in progress must not hold a shutdown back for its 50 s: it answers `waiting` at once, on a connection
  // that then closes (the server only closes connections that are idle when it starts closing).
  app.addHook("preClose", async () => {
    for (const [call, response] of open) {
      if (!response.headersSent) response.setHeader("connection", "close");
      call.abort();
    }
  });
  app.addHook("onClose", async () => wakers.close());
  app.addHook("onRequest", async (request) => {
    if (request.routeOptions.url !== MCP_URL) return;
    if (!isAllowedOrigin(request.headers.origin, request.headers.host, options.publicUrl))
      throw new ApiError("forbidden", "requests from this Origin may not call /mcp");
  });

  defineRoute(
    app,
    {
      method: "POST",
      url: MCP_URL,
      summary: "The MCP endpoint: the agent's tools (approvals, pause state, checkpoints, triggers)",
      description: DESCRIPTION,
      tags: ["mcp"],
      auth: "agent",
      body: JsonRpcMessage,
      bodyLimit: MCP_BODY_LIMIT,
      responses: { 200: "the JSON-RPC response", 202: "a notification, accepted" },
    },
    async ({ auth: agent }, request, reply) => {
      const call = new AbortController();
      open.set(call, reply.raw);
      const { StreamableHTTPServerTransport, toolServer } = await mcpServer();
      const server = toolServer({ ctx, agent, signal: call.signal, pollMs: options.pollMs ?? 500, wakers });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on("close", () => {
        call.abort();
        open.delete(call);
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, "mcp request failed");
        if (!reply.raw.headersSent) reply.raw.writeHead(400, { "content-type": "application/json" });
        reply.raw.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "internal error" }, id: null }));
      }
    },
  );

  // Stateless: no stream to open (GET) and no session to end (DELETE).
  for (const method of ["GET", "DELETE"] as const) {
    defineRoute(
      app,
      {
        method,
        url: MCP_URL,
        summary: `Not used: this MCP server is stateless (${method === "GET" ? "no event stream" : "no session"})`,
        tags: ["mcp"],
        auth: "agent",
        responses: { 405: "POST only" },
      },
      async (_input, _request, reply) =>
        reply
          .status(405)
          .header("allow", "POST")
          .send({ jsonrpc: "2.0", error: { code: -32000, message: "this server is stateless: POST only" }, id: null }),
    );
  }
}
