import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HandlerContext } from "../../app/context";
import { type ListResult, listAgents, listAudit, listRuns, RUN_STATES } from "../../app/lists/operator-lists";
import { ApiError } from "./errors";
import { PageQuery } from "./paging";
import { defineRoute } from "./route";

const AgentName = z.string().min(1).max(200);
const AgentsQuery = z.object(PageQuery).strict();
const RunsQuery = z
  .object({
    state: z.enum(RUN_STATES).optional(),
    agent: AgentName.optional(),
    reviewer: z.enum(["me"]).optional(),
    ...PageQuery,
  })
  .strict();
const AuditQuery = z
  .object({
    agent: AgentName.optional(),
    since: z.iso
      .datetime({ offset: true })
      .transform((s) => new Date(s))
      .optional(),
    ...PageQuery,
  })
  .strict();

/** A list handler's answer as the API's: the page, or the refusal as a 400 or 404. */
function answer<T>(result: ListResult<T>) {
  if (result.kind === "page") return { items: result.items, nextCursor: result.nextCursor };
  throw new ApiError(
    result.kind === "invalid" ? "invalid_body" : "not_found",
    `${result.field}: ${result.message}`,
    result.field,
  );
}

/** The operator's lists (app/lists/operator-lists.ts, shared with the web console): a user key, one tenant. */
export function registerOperatorRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/agents",
      summary: "The tenant's agents by name: state, effective state, hold and held counts by kind",
      auth: "user",
      query: AgentsQuery,
    },
    async ({ auth: user, query }) => answer(await listAgents(ctx, user, query)),
  );

  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/runs",
      summary: "The tenant's runs, newest first; `reviewer=me`: those the caller reviews",
      auth: "user",
      query: RunsQuery,
    },
    async ({ auth: user, query }) => answer(await listRuns(ctx, user, query)),
  );

  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/audit",
      summary: "The tenant's audited acts, newest first: pause and resume, decisions, reconciliations",
      auth: "user",
      query: AuditQuery,
    },
    async ({ auth: user, query }) => answer(await listAudit(ctx, user, query)),
  );
}
