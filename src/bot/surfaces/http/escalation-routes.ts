import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ESCALATION_STATES } from "../../../policy/escalation";
import type { HandlerContext } from "../../app/context";
import { acknowledge, type EscalationView, listEscalations, NO_PLATFORM_WORDS } from "../../app/escalation/escalations";
import { ApiError } from "./errors";
import { decodeCursor, PageQuery, pageAnswer } from "./paging";
import { defineRoute } from "./route";

// The schemas are named constants: the routes validate with them and /openapi.json is built from them.

/** `GET /v1/escalations?state=open|acknowledged|resolved&limit=&cursor=` (no state: open and acknowledged). */
export const EscalationListQuery = z
  .object({ state: z.enum(ESCALATION_STATES as ["open", "acknowledged", "resolved"]).optional(), ...PageQuery })
  .strict();

/** An escalation id as we make them ("esc_" and url-safe characters); anything else is a 400. */
export const EscalationParams = z
  .object({ id: z.string().regex(/^esc_[A-Za-z0-9_-]{1,64}$/, "an escalation id such as esc_…") })
  .strict();

/** The acknowledge takes no fields; an empty object or no body. */
export const EscalationAckBody = z.object({}).strict();

const EscalationCursor = z
  .object({ createdAt: z.iso.datetime().transform((s) => new Date(s)), id: z.string() })
  .strict();

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The answer's item shape (issue 15), plus state, agent and since. */
export const escalationJson = (e: EscalationView) => ({
  id: e.id,
  kind: e.kind,
  subject: e.subject,
  agent: e.agent,
  state: e.state,
  level: e.level,
  notified: e.notified,
  since: e.since.toISOString(),
  sentAt: iso(e.sentAt),
  acknowledgedBy: e.acknowledgedBy,
  acknowledgedAt: iso(e.acknowledgedAt),
  resolvedAt: iso(e.resolvedAt),
  resolution: e.resolution,
  // Each ping: when, to whom, where its cards went; `note` says so when it reached no chat platform.
  pings: e.pings.map((p) => ({
    level: p.level,
    repeat: p.repeat,
    sentAt: p.sentAt.toISOString(),
    notified: p.notified,
    postedTo: p.postedTo.map((t) => ({ platform: t.platform, channel: t.channelId })),
    note: p.postedTo.length === 0 ? NO_PLATFORM_WORDS : null,
  })),
});

/**
 * The tenant's escalations for the caller. Role rule (policy/access.ts `seesEscalation`): admins see all of their
 * tenant's; others those naming them as a target and those of agents they are principal of. Another
 * tenant's escalation is a 404.
 */
export function registerEscalationRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/escalations",
      summary: "What is escalating to the caller (default: open and acknowledged), newest first",
      tags: ["escalations"],
      auth: "user",
      query: EscalationListQuery,
    },
    async ({ auth: user, query }) => {
      const page = await listEscalations(ctx, user, {
        states: query.state ? [query.state] : ["open", "acknowledged"],
        limit: query.limit,
        after: decodeCursor(EscalationCursor, query.cursor),
      });
      return pageAnswer(page.items.map(escalationJson), page.next);
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/escalations/:id/ack",
      summary: "Acknowledge an escalation: its current level's reminders stop (the next level still applies)",
      tags: ["escalations"],
      auth: "user",
      params: EscalationParams,
      body: EscalationAckBody,
      responses: { 200: "acknowledged, or already acknowledged at this level" },
    },
    async ({ auth: user, params: { id } }) => {
      const result = await acknowledge(ctx, user, id);
      if (result.kind === "not_found") throw new ApiError("not_found", `no escalation '${id}'`);
      if (result.kind === "resolved") throw new ApiError("invalid_state", "the escalation is resolved");
      return { result: result.kind, escalation: escalationJson(result.escalation) };
    },
  );
}
