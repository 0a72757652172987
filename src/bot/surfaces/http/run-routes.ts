import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { canonicalJson } from "../../../policy/canonical-json";
import { parseDurationMs } from "../../../policy/duration";
import { MAX_ESCALATE_AFTER_S } from "../../../policy/limits";
import { createRunForAgent } from "../../app/approvals/create-run";
import { decideRun } from "../../app/approvals/decide-run";
import { readRun } from "../../app/approvals/read-run";
import { storedRunId } from "../../app/approvals/run-ids";
import { savePacket } from "../../app/approvals/save-packet";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent } from "../../app/records";
import { ApiError, decisionStatus } from "./errors";
import { defineRoute } from "./route";

/** A packet is any JSON up to 256 KiB in its canonical encoding. */
export const PACKET_LIMIT_BYTES = 256 * 1024;
/** Route body limit: the packet plus room for the other fields. Larger bodies get a 413 before parsing. */
export const PACKET_ROUTE_BODY_LIMIT = PACKET_LIMIT_BYTES + 16 * 1024;

const RunId = z.string().regex(/^[A-Za-z0-9_.:-]{1,120}$/, "use 1-120 letters, digits, '.', '_', ':' or '-'");
export const Params = z.object({ id: RunId });
const Instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const Duration = z.union([z.number().int().positive(), z.string().max(40)]).transform((v, ctx) => {
  const ms = typeof v === "number" ? v * 1000 : parseDurationMs(v);
  if (!ms) ctx.addIssue({ code: "custom", message: "a duration such as '30m' or a number of seconds" });
  else if (ms / 1000 > MAX_ESCALATE_AFTER_S) ctx.addIssue({ code: "custom", message: "at most 366 days" });
  return Math.round((ms ?? 0) / 1000);
});

export const CreateRunBody = z
  .object({
    id: RunId.optional(),
    agent: z.string().min(1),
    operation: z.string().regex(/^[A-Za-z0-9_.-]{1,80}$/, "use 1-80 letters, digits, '.', '_' or '-'"),
    destination: z.url(),
    packet: z.json(),
    reviewers: z.array(z.string().min(1)).min(1, "at least one reviewer").max(50).optional(),
    deadline: Instant,
    escalateAfter: Duration.optional(),
    checkpoint: z.string().min(1).max(200).optional(),
  })
  .strict();

export const PacketBody = z
  .object({ packet: z.json(), version: z.number().int().positive().optional(), deadline: Instant.optional() })
  .strict();

const DecisionBody = z
  .object({
    eventId: z.string().min(1).max(200),
    action: z.enum(["approve", "deny"]),
    version: z.number().int().positive(),
    digest: z.string().min(1).max(200),
  })
  .strict();

export function checkPacketSize(packet: unknown): void {
  if (Buffer.byteLength(canonicalJson(packet), "utf8") > PACKET_LIMIT_BYTES)
    throw new ApiError("payload_too_large", "the packet is larger than 256 KiB");
}

/**
 * A changed packet from the agent, for `POST /v1/runs/:id/packet` and MCP's `update_packet`: the refusals are
 * the API's, thrown as ApiError (each surface turns them into its own answer).
 */
export async function submitPacket(
  ctx: HandlerContext,
  agent: KnownAgent,
  id: string,
  body: z.infer<typeof PacketBody>,
) {
  checkPacketSize(body.packet);
  const runId = await storedRunId(ctx, agent.tenantId, id);
  const result = await savePacket(ctx, { agent, runId, ...body });
  if (result.kind === "not_found") throw new ApiError("not_found", `no run '${id}'`);
  if (result.kind === "stale") throw new ApiError("stale", "the run has moved on to a newer version");
  if (result.kind === "invalid_state") throw new ApiError("invalid_state", "the run is no longer waiting");
  return { run: result.run, outcome: result.kind };
}

export function registerRunRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  registerAgentRunRoutes(app, ctx);
  registerRunReadRoutes(app, ctx);
}

/** What the agent writes: a run, and changed packets of it. */
function registerAgentRunRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/runs",
      summary: "Create a run: a packet waiting for its reviewers' decision",
      auth: "agent",
      body: CreateRunBody,
      bodyLimit: PACKET_ROUTE_BODY_LIMIT,
      responses: { 201: "created", 200: "the same run was already created (an idempotent retry)" },
    },
    async ({ auth: agent, body }, _request, reply) => {
      checkPacketSize(body.packet);
      if (body.agent !== agent.name) throw new ApiError("forbidden", "an agent key may only create its own runs");
      const result = await createRunForAgent(ctx, { ...body, agent, escalateAfterSeconds: body.escalateAfter });
      if (result.kind === "invalid")
        throw new ApiError("invalid_body", `${result.field}: ${result.message}`, result.field);
      if (result.kind === "exists") throw new ApiError("conflict", `run '${body.id}' already exists`);
      return reply.status(result.kind === "created" ? 201 : 200).send(result.run);
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/runs/:id/packet",
      summary: "Submit a changed packet: a new version and a new approval request",
      auth: "agent",
      params: Params,
      body: PacketBody,
      bodyLimit: PACKET_ROUTE_BODY_LIMIT,
    },
    async ({ auth: agent, params: { id }, body }) => {
      const { run, outcome } = await submitPacket(ctx, agent, id, body);
      return { ...run, outcome };
    },
  );
}

/** What people and the agent read of a run, and the decisions people make on it. */
function registerRunReadRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/runs/:id",
      summary: "One run; with its packet for its reviewers, its agent's principal, admins and the agent itself",
      auth: "agentOrUser",
      params: Params,
    },
    async ({ auth: caller, params: { id } }) => {
      const read = await readRun(ctx, caller, id);
      if (!read) throw new ApiError("not_found", `no run '${id}'`);
      return "packet" in read ? { ...read.view, packet: read.packet } : read.view;
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/runs/:id/decisions",
      summary: "Approve or deny the run's current packet version (bound to its version and digest)",
      auth: "user",
      params: Params,
      body: DecisionBody,
      responses: { 200: "recorded, or the recorded result of the same event (duplicate)" },
    },
    async ({ auth: actor, params: { id }, body }, _request, reply) => {
      const runId = await storedRunId(ctx, actor.tenantId, id);
      const outcome = await decideRun(ctx, { runId, ...body, actor });
      if (outcome.result === "not_found") throw new ApiError("not_found", `no run '${id}'`);
      return reply.status(decisionStatus(outcome.result)).send(outcome);
    },
  );
}
