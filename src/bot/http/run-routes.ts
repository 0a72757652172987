import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseDurationMs } from "../../policy/delivery";
import { canonicalJson } from "../../policy/digest";
import { MAX_ESCALATE_AFTER_S } from "../../policy/limits";
import type { HandlerContext } from "../context";
import { createRunForAgent } from "../handlers/create-run";
import { decideRun } from "../handlers/decide-run";
import { findTenantRun, storedRunId } from "../handlers/run-ids";
import { runView, seesDeliveryDetail } from "../handlers/run-view";
import { savePacket } from "../handlers/save-packet";
import { authenticateAgent, authenticateAgentOrUser, authenticateUser } from "./auth";
import { decisionStatus } from "./decision-status";
import { ApiError } from "./errors";
import { parseBody } from "./validate";

/** A packet is any JSON up to 256 KiB in its canonical encoding. */
export const PACKET_LIMIT_BYTES = 256 * 1024;
/** Route body limit: the packet plus room for the other fields. Larger bodies get a 413 before parsing. */
const PACKET_ROUTE_BODY_LIMIT = PACKET_LIMIT_BYTES + 16 * 1024;

const RunId = z.string().regex(/^[A-Za-z0-9_.:-]{1,120}$/, "use 1-120 letters, digits, '.', '_', ':' or '-'");
const Params = z.object({ id: RunId });
const Instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const Duration = z.union([z.number().int().positive(), z.string().max(40)]).transform((v, ctx) => {
  const ms = typeof v === "number" ? v * 1000 : parseDurationMs(v);
  if (!ms) ctx.addIssue({ code: "custom", message: "a duration such as '30m' or a number of seconds" });
  else if (ms / 1000 > MAX_ESCALATE_AFTER_S) ctx.addIssue({ code: "custom", message: "at most 366 days" });
  return Math.round((ms ?? 0) / 1000);
});

const CreateRunBody = z
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

const PacketBody = z
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

function checkPacketSize(packet: unknown): void {
  if (Buffer.byteLength(canonicalJson(packet), "utf8") > PACKET_LIMIT_BYTES)
    throw new ApiError("payload_too_large", "the packet is larger than 256 KiB");
}

export function registerRunRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  const { db } = ctx.store;

  app.post("/v1/runs", { bodyLimit: PACKET_ROUTE_BODY_LIMIT }, async (request, reply) => {
    const agent = await authenticateAgent(db, request);
    const body = parseBody(CreateRunBody, request.body);
    checkPacketSize(body.packet);
    if (body.agent !== agent.name) throw new ApiError("forbidden", "an agent key may only create its own runs");
    const result = await createRunForAgent(ctx, {
      ...body,
      agent,
      escalateAfterSeconds: body.escalateAfter,
    });
    if (result.kind === "invalid")
      throw new ApiError("invalid_body", `${result.field}: ${result.message}`, result.field);
    if (result.kind === "exists") throw new ApiError("conflict", `run '${body.id}' already exists`);
    return reply.status(result.kind === "created" ? 201 : 200).send(result.run);
  });

  app.post("/v1/runs/:id/packet", { bodyLimit: PACKET_ROUTE_BODY_LIMIT }, async (request) => {
    const agent = await authenticateAgent(db, request);
    const { id } = Params.parse(request.params);
    const body = parseBody(PacketBody, request.body);
    checkPacketSize(body.packet);
    const runId = await storedRunId(db, agent.tenantId, id);
    const result = await savePacket(ctx, { agent, runId, ...body });
    if (result.kind === "not_found") throw new ApiError("not_found", `no run '${id}'`);
    if (result.kind === "stale") throw new ApiError("stale", "the run has moved on to a newer version");
    if (result.kind === "invalid_state") throw new ApiError("invalid_state", "the run is no longer waiting");
    return { ...result.run, outcome: result.kind };
  });

  app.get("/v1/runs/:id", async (request) => {
    const caller = await authenticateAgentOrUser(db, request);
    const { id } = Params.parse(request.params);
    const tenantId = caller.kind === "agent" ? caller.agent.tenantId : caller.user.tenantId;
    const run = await findTenantRun(db, tenantId, id);
    const visible = run && (caller.kind === "agent" ? run.agentId === caller.agent.id : true);
    if (!run || !visible) throw new ApiError("not_found", `no run '${id}'`);
    return runView(db, run, caller.kind === "user" && (await seesDeliveryDetail(db, caller.user, run.agentId)));
  });

  app.post("/v1/runs/:id/decisions", async (request, reply) => {
    const actor = await authenticateUser(db, request);
    const { id } = Params.parse(request.params);
    const body = parseBody(DecisionBody, request.body);
    const runId = await storedRunId(db, actor.tenantId, id);
    const outcome = await decideRun(ctx, { runId, ...body, actor });
    if (outcome.result === "not_found") throw new ApiError("not_found", `no run '${id}'`);
    return reply.status(decisionStatus(outcome.result)).send(outcome);
  });
}
