import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { HandlerContext } from "../../app/context";
import { ApiError } from "../http/errors";
import { registerAgentRoutes } from "./agent-routes";
import { registerApprovalRoutes } from "./approval-routes";
import { registerAuthRoutes } from "./auth-routes";
import { registerEscalationRoutes } from "./escalation-routes";
import { CsrfRefusal, registerFormParser } from "./form";
import type { ConsoleOptions } from "./options";
import { registerOverviewRoute } from "./overview";
import { sendError } from "./pages";
import { consoleAsset } from "./render";
import { registerReviewRoutes } from "./review-routes";
import { type ConsoleSession, sessionOf } from "./session";

declare module "fastify" {
  interface FastifyRequest {
    consoleSession: ConsoleSession | null;
  }
}

/** The routes that answer without a session (an unknown page says so to anyone). */
const OPEN = new Set(["/sign-in", "/sign-in/:token", "/console/:asset", "/*", "/favicon.ico"]);

/** A browser asking for a page (not the API, not a script or an image). */
const wantsPage = (request: FastifyRequest) =>
  !request.url.startsWith("/v1/") && String(request.headers.accept ?? "").includes("text/html");

/**
 * The web console, a surface (design.md section 2). Pages are drawn from templates/ (render.ts); every action
 * calls the same use cases as chat and the API, and answers in the same words. Its own scope: url-encoded
 * forms, HTML errors, and a session check before every route but sign-in.
 */
export type { ConsoleOptions };

export function registerConsole(app: FastifyInstance, options: ConsoleOptions): void {
  const { ctx } = options;
  app.register(async (scope) => {
    registerFormParser(scope);
    scope.decorateRequest("consoleSession", null);
    scope.addHook("preHandler", async (request, reply) => {
      request.consoleSession = await sessionOf(ctx, request);
      if (request.consoleSession || OPEN.has(request.routeOptions.url ?? "")) return;
      if (request.method === "GET") return reply.redirect("/sign-in", 303);
      return sendError(reply, null, 401, "Sign in first: this form needs a console session.");
    });
    scope.setErrorHandler((error, request, reply) => consoleError(ctx, error, request, reply));
    scope.get("/console/:asset", async (request, reply) => {
      const asset = consoleAsset((request.params as { asset: string }).asset);
      if (!asset) return sendError(reply, null, 404, "No such file.");
      return reply.type(asset.type).header("cache-control", "no-cache").send(asset.body);
    });
    // Browsers ask for /favicon.ico whatever the page's <link rel="icon"> says (an old tab, a bookmark).
    scope.get("/favicon.ico", async (_request, reply) => reply.redirect("/console/favicon.svg", 301));
    // Routes of their own take precedence: this answers only an address nothing else serves.
    scope.get("/*", async (request, reply) => {
      if (!wantsPage(request)) return reply.callNotFound();
      return sendError(reply, request.consoleSession, 404, "There is no such page in the console.");
    });
    registerAuthRoutes(scope, options);
    registerOverviewRoute(scope, ctx);
    registerAgentRoutes(scope, options);
    registerApprovalRoutes(scope, ctx);
    registerReviewRoutes(scope, ctx);
    registerEscalationRoutes(scope, ctx);
  });
}

/** A refused or malformed request is a clear 4xx page; only a real fault is a 500, and it is logged. */
function consoleError(ctx: HandlerContext, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const session = request.consoleSession;
  if (error instanceof CsrfRefusal) {
    ctx.log.warn({ url: request.url }, "console form refused: missing or wrong CSRF token");
    return sendError(
      reply,
      session,
      403,
      "This form's security token is missing or out of date; nothing was changed. Reload the page and try again.",
    );
  }
  if (error instanceof ApiError && error.status < 500) return sendError(reply, session, error.status, error.message);
  const code = (error as { code?: string }).code;
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendError(reply, session, 413, "The form is larger than allowed.");
  if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return sendError(reply, session, 415, "Forms must be url-encoded.");
  const status = (error as { statusCode?: number }).statusCode;
  if (status && status >= 400 && status < 500)
    return sendError(reply, session, status, "The request could not be read.");
  request.log.error({ err: error }, "console request failed");
  return sendError(reply, session, 500, "Something went wrong on our side; nothing more is known here. See the log.");
}
