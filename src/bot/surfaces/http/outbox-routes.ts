import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseDurationMs } from "../../../policy/delivery";
import type { HandlerContext } from "../../app/context";
import { listOutbox } from "../../app/outbox/outbox-list";
import { reconcileMatching, reconcileOutbox } from "../../app/outbox/reconcile-outbox";
import { RECONCILE_REFUSALS } from "../chat/words";
import { agentOfTenant } from "./auth";
import { ApiError } from "./errors";
import { decodeCursor, PageQuery, pageAnswer } from "./paging";
import { defineRoute } from "./route";

const STATES = ["PLANNED", "DISPATCHED", "ACKNOWLEDGED", "OBSERVED", "FAILED", "NEEDS_REVIEW", "ABANDONED"] as const;

const ListQuery = z
  .object({
    state: z.enum(STATES).optional(),
    agent: z.string().min(1).optional(),
    ...PageQuery,
  })
  .strict();

/** An outbox page's cursor: the last item's creation time and key. */
const OutboxCursor = z.object({ createdAt: z.iso.datetime().transform((s) => new Date(s)), id: z.string() }).strict();

const ReconcileBody = z
  .object({
    resolution: z.enum(["delivered", "retry", "abandon"]),
    note: z.string().trim().min(1, "a note is required").max(1000),
  })
  .strict();

/** "older than": a duration ("2h", "1d") before now, or an ISO 8601 time. */
const OlderThan = z
  .string()
  .max(100)
  .transform((text, ctx) => {
    const ms = parseDurationMs(text);
    if (ms !== null && /[a-z]$/i.test(text.trim())) return { ms };
    const at = z.iso.datetime({ offset: true }).safeParse(text);
    if (at.success) return { at: new Date(at.data) };
    ctx.addIssue({ code: "custom", message: "a duration such as '2h' or an ISO 8601 time" });
    return { ms: 0 };
  });

const BulkReconcileBody = z
  .object({
    filter: z
      .object({
        agent: z.string().min(1).max(200).optional(),
        destination: z.string().min(1).max(2000).optional(),
        state: z.literal("NEEDS_REVIEW", { error: "only NEEDS_REVIEW items can be reconciled" }).optional(),
        olderThan: OlderThan.optional(),
      })
      .strict(),
    resolution: z.enum(["delivered", "retry", "abandon"]),
    note: z.string().trim().min(1, "a note is required").max(1000),
    limit: z.number().int().min(1).max(1000).default(500),
  })
  .strict();

const KeyParams = z.object({ key: z.string().min(1).max(300) });

export function registerOutboxRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  /** The caller's tenant's effects, newest first; a NEEDS_REVIEW item shows what an operator needs to decide. */
  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/outbox",
      summary: "The tenant's outbox items, newest first",
      auth: "user",
      query: ListQuery,
    },
    async ({ auth: user, query }) => {
      const agent = query.agent ? await agentOfTenant(ctx, user.tenantId, query.agent) : undefined;
      const page = await listOutbox(ctx, user, {
        state: query.state,
        agentId: agent?.id,
        limit: query.limit,
        after: decodeCursor(OutboxCursor, query.cursor),
      });
      return pageAnswer(page.items, page.next);
    },
  );
  registerReconcileRoutes(app, ctx);
}

/** Settling NEEDS_REVIEW items, one by its key or every one a filter matches. */
function registerReconcileRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  /** Every NEEDS_REVIEW item the filter matches, each reconciled (and audited) as by the route below. */
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/outbox/reconcile",
      summary: "Reconcile every NEEDS_REVIEW item a filter matches",
      auth: "user",
      body: BulkReconcileBody,
    },
    async ({ auth: user, body }) => {
      const { agent: agentName, destination, olderThan } = body.filter;
      const agent = agentName ? await agentOfTenant(ctx, user.tenantId, agentName) : undefined;
      const now = ctx.now();
      const createdBefore = olderThan && ("at" in olderThan ? olderThan.at : new Date(now.getTime() - olderThan.ms));
      return reconcileMatching(ctx, {
        user,
        filter: { agentId: agent?.id, destination, createdBefore },
        resolution: body.resolution,
        note: body.note,
        limit: body.limit,
      });
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/outbox/:key/reconcile",
      summary: "Reconcile one NEEDS_REVIEW item: delivered, retry or abandon",
      auth: "user",
      params: KeyParams,
      body: ReconcileBody,
    },
    async ({ auth: user, params: { key }, body }) => {
      const result = await reconcileOutbox(ctx, { user, key, ...body });
      switch (result.kind) {
        case "reconciled":
          return result.item;
        case "not_found":
          throw new ApiError("not_found", `${RECONCILE_REFUSALS.not_found}: '${key}'`);
        case "forbidden":
          throw new ApiError("forbidden", RECONCILE_REFUSALS.forbidden);
        case "not_needs_review":
          throw new ApiError("not_needs_review", RECONCILE_REFUSALS.not_needs_review);
      }
    },
  );
}
