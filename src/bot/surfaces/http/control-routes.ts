import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseUntil } from "../../../policy/until";
import type { HandlerContext } from "../../app/context";
import { agentControlView, tenantControlView, tenantControlViewOf } from "../../app/control/control-read";
import { pauseAgent } from "../../app/control/pause";
import { resumePreflight } from "../../app/control/preflight";
import { resumeAgent } from "../../app/control/resume";
import { pauseTenant, resumeTenant } from "../../app/control/tenant-control";
import type { KnownAgent, KnownUser } from "../../app/records";
import { agentOfTenant } from "./auth";
import { ApiError } from "./errors";
import { defineRoute } from "./route";

const AgentParams = z.object({ agent: z.string().min(1).max(200) });

export function pauseBodySchema(now: () => Date) {
  return z
    .object({
      reason: z.string().trim().min(1, "a reason is required").max(500),
      // The same forms as chat's `/pause ... until` (policy/until.ts), e.g. "2h" or an ISO 8601 time.
      until: z
        .string()
        .max(100)
        .transform((text, ctx) => {
          const at = parseUntil(text, now());
          if (!at) ctx.addIssue({ code: "custom", message: "a duration such as '2h' or an ISO 8601 date or time" });
          return at ?? new Date(0);
        })
        .refine((d) => d.getTime() > now().getTime(), "until must be in the future")
        .optional(),
    })
    .strict();
}
const ResumeBody = z.object({}).strict();
const AgentResumeBody = z
  .object({
    dryRun: z.boolean().optional(),
    /** "Resume anyway" past a failing check (principals and admins), with the reason that is audited. */
    override: z
      .object({ reason: z.string().trim().min(1, "an override needs a reason").max(500) })
      .strict()
      .optional(),
  })
  .strict();

export function registerControlRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/agents/:agent/control",
      summary: "An agent's control record",
      auth: "user",
      params: AgentParams,
    },
    async ({ auth: user, params }) => agentControlView(ctx, await agentOfTenant(ctx, user.tenantId, params.agent)),
  );
  defineRoute(
    app,
    { method: "GET", url: "/v1/tenant", summary: "The tenant-wide control record", auth: "user" },
    async ({ auth: user }) => tenantControlView(ctx, user.tenantId),
  );
  registerAgentControl(app, ctx);
  registerTenantControl(app, ctx);
}

/** Pause and resume of one agent, by a user of its tenant (the agent of the path, or a 404). */
function registerAgentControl(app: FastifyInstance, ctx: HandlerContext): void {
  const agentAction = <B extends z.ZodType>(url: string, summary: string, body: B) =>
    ({ method: "POST", url, summary, auth: "user", params: AgentParams, body }) as const;
  const agentOf = (user: KnownUser, params: { agent: string }) => agentOfTenant(ctx, user.tenantId, params.agent);

  defineRoute(
    app,
    agentAction("/v1/agents/:agent/pause", "Pause an agent: its outbound work is held", pauseBodySchema(ctx.now)),
    async ({ auth: user, params, body }) => {
      const agent = await agentOf(user, params);
      const result = await pauseAgent(ctx, { user, agent, reason: body.reason, until: body.until ?? null });
      return { ...result.control, outcome: result.kind };
    },
  );

  defineRoute(
    app,
    agentAction(
      "/v1/agents/:agent/resume",
      "Resume an agent and release its held work after the resume checklist; `dryRun: true` shows the preflight " +
        "and its checklist and changes nothing. A failing check answers 409 `checklist_failed` with the checklist " +
        "(the agent stays paused) unless a principal or admin sends `override: { reason }`.",
      AgentResumeBody,
    ),
    async ({ auth: user, params, body }, _request, reply) => {
      const agent = await agentOf(user, params);
      if (body.dryRun) return dryRun(ctx, user, agent);
      const override = body.override ? { override: body.override } : {};
      const result = await resumeAgent(ctx, { resumer: { kind: "user", user }, agent, ...override });
      if (result.kind === "resumed")
        return { ...result.control, releaseId: result.releaseId, checklist: result.checklist ?? [] };
      if (result.kind === "checklist_failed") {
        const refusal = new ApiError("checklist_failed", "a resume check failed; the agent stays paused");
        return reply.status(refusal.status).send({ ...refusal.toJSON(), checklist: result.checklist ?? [] });
      }
      throw new ApiError(result.kind, refusalMessage(result.kind));
    },
  );
}

/** The preflight: what a resume would release and whether this caller may do it. Changes nothing. */
async function dryRun(ctx: HandlerContext, user: KnownUser, agent: KnownAgent) {
  const preflight = await resumePreflight(ctx, { user, agent });
  const { kind, control, resumer, tenantPaused } = preflight;
  return {
    dryRun: true,
    allowed: kind === "ready",
    ...(kind === "ready" ? {} : { refusal: kind }),
    requestedBy: { user: resumer.name, role: resumer.role },
    control,
    tenantPaused,
    ...(kind === "ready"
      ? { held: { ...preflight.held, release: preflight.forecast }, checklist: preflight.checklist }
      : {}),
  };
}

/** The tenant-wide pause, for admins. */
function registerTenantControl(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/tenant/pause",
      summary: "Pause every agent of the tenant (admins)",
      auth: "user",
      body: pauseBodySchema(ctx.now),
    },
    async ({ auth: user, body }) => {
      const result = await pauseTenant(ctx, user, body.reason, body.until ?? null);
      if (result.kind === "forbidden") throw new ApiError("forbidden", "only an admin can pause the whole tenant");
      return { ...(await tenantControlViewOf(ctx, user.tenantId, result.control)), outcome: result.kind };
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/tenant/resume",
      summary: "Lift the tenant-wide pause (admins)",
      auth: "user",
      body: ResumeBody,
    },
    async ({ auth: user }) => {
      const result = await resumeTenant(ctx, user);
      if (result.kind === "forbidden") throw new ApiError("forbidden", "only an admin can resume the whole tenant");
      if (result.kind === "not_paused") throw new ApiError("not_paused", "the tenant is not paused");
      return { ...(await tenantControlViewOf(ctx, user.tenantId, result.control)), outcome: result.kind };
    },
  );
}

function refusalMessage(kind: "creator_hold" | "forbidden" | "not_paused"): string {
  switch (kind) {
    case "creator_hold":
      return "this pause is an admin hold; only an admin can lift it";
    case "forbidden":
      return "only the agent's principal or an admin can resume it";
    case "not_paused":
      return "the agent is not paused";
  }
}
