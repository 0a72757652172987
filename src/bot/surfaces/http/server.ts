import { createRequire } from "node:module";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { HandlerContext } from "../../app/context";
import { registerMcpRoute } from "../mcp/mcp-route";
import { registerControlRoutes } from "./control-routes";
import { toApiError, UNAVAILABLE_RETRY_AFTER_S } from "./errors";
import { registerEscalationRoutes } from "./escalation-routes";
import { registerEventRoutes } from "./event-routes";
import { registerJsonBodyRules } from "./json-body";
import { registerMaintenanceRoutes } from "./maintenance-routes";
import { type MetricsSource, registerMetricsRoute } from "./metrics-route";
import { openApiDocument } from "./openapi";
import { registerOperatorRoutes } from "./operator-routes";
import { registerOutboxRoutes } from "./outbox-routes";
import { declaredRoutes, defineRoute, enableDeclaredRoutes } from "./route";
import { registerRunRoutes } from "./run-routes";
import { registerSecurityHeaders } from "./security-headers";
import { registerTokenRoutes } from "./token-routes";
import { registerTriggerRoutes } from "./trigger-routes";

export interface HealthReport {
  ok: boolean;
  checks: Record<string, "ok" | string>;
}

export interface HttpServerOptions {
  ctx: HandlerContext;
  health: () => Promise<HealthReport>;
  /** Largest accepted request body; larger bodies get a 413 before any handler runs. Default 64 KiB. */
  bodyLimit?: number;
  /** What `/metrics` renders (the composition root passes the app's own registry); absent: `/metrics` is a 404. */
  metrics?: MetricsSource;
  /** HOLDFAST_METRICS_TOKEN: when set, `/metrics` wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** HOLDFAST_PUBLIC_URL: the deployment's own origin (browser pages there may call `/mcp`). */
  publicUrl?: string;
  /** This process's maintenance state; not `ready` while it drains for its own stop (then /healthz is 503). */
  maintenance?: () => { state: string; ready: boolean };
  /**
   * The longest a client may take to send a whole request, headers and body (a slow body is cut off with a
   * 408 and the connection closed). Default 30 s; checked every `requestTimeoutCheckMs` (default 2 s).
   */
  requestTimeoutMs?: number;
  requestTimeoutCheckMs?: number;
}

export const REQUEST_TIMEOUT_MS = 30_000;

/** A load balancer reads only the status; a person reads `checks`. */
const HEALTH_ANSWERS = {
  200: "healthy",
  503: "a dependency does not answer (named in `checks`), or the process drains for a stop (`state`)",
};

const { version } = createRequire(import.meta.url)("../../../../package.json") as { version: string };

export function buildHttpServer(options: HttpServerOptions): FastifyInstance {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.ctx.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    // Fastify's default is no limit at all: a body sent a byte at a time held its connection for good.
    requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: options.requestTimeoutCheckMs ?? 2_000,
    },
    // Two lines per request at info would bury the start log and every fact after it (the console polls every
    // 2 s); requests are logged at debug instead, and failures always.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook("onResponse", async (request, reply) => {
    // The route's pattern, not the URL: a one-time sign-in link carries its token in the path.
    const route = request.routeOptions.url ?? "(no route)";
    request.log.debug({ method: request.method, route, status: reply.statusCode }, "request");
  });

  registerSecurityHeaders(app);
  registerJsonBodyRules(app);
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === "internal") request.log.error({ err: error }, "request failed");
    if (apiError.code === "unavailable") reply.header("retry-after", String(UNAVAILABLE_RETRY_AFTER_S));
    return reply.status(apiError.status).send(apiError.toJSON());
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: "not_found", message: `no route ${request.method} ${request.url}` }),
  );

  enableDeclaredRoutes(app, options.ctx);
  defineRoute(
    app,
    {
      method: "GET",
      url: "/healthz",
      summary: "Whether the database and Redis answer",
      auth: "none",
      responses: HEALTH_ANSWERS,
    },
    async (_input, _request, reply) => {
      const self = options.maintenance?.() ?? { state: "RUNNING", ready: true };
      if (!self.ready) return reply.status(503).send({ state: self.state });
      const report = await options.health();
      return reply.status(report.ok ? 200 : 503).send({ ...report, state: self.state });
    },
  );
  defineRoute(
    app,
    {
      method: "GET",
      url: "/livez",
      summary: "Whether the process answers (200 while it drains too: restart it only when this fails)",
      auth: "none",
      responses: { 200: "the process answers" },
    },
    async () => ({ state: options.maintenance?.().state ?? "RUNNING" }),
  );
  // Built when asked, so routes registered after this server was built (the agent's messages) are in it.
  defineRoute(
    app,
    { method: "GET", url: "/openapi.json", summary: "This document: the API in OpenAPI 3.1", auth: "none" },
    async () => openApiDocument(declaredRoutes(app), { version }),
  );
  registerMetricsRoute(app, options.metrics ?? null, options.metricsToken);
  registerOperatorRoutes(app, options.ctx);
  registerControlRoutes(app, options.ctx);
  registerTokenRoutes(app, options.ctx);
  registerRunRoutes(app, options.ctx);
  registerOutboxRoutes(app, options.ctx);
  registerTriggerRoutes(app, options.ctx);
  registerEventRoutes(app, options.ctx);
  registerEscalationRoutes(app, options.ctx);
  registerMaintenanceRoutes(app, options.ctx);
  registerMcpRoute(app, options.ctx, { publicUrl: options.publicUrl });
  return app;
}
