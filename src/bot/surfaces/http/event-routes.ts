import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { headerSafeId } from "../../../policy/header-ids";
import type { HandlerContext } from "../../app/context";
import { acceptEvent } from "../../app/held/receive-event";
import { requireOwner } from "./auth";
import { ApiError } from "./errors";
import { defineRoute } from "./route";

const Params = z.object({ agent: z.string().min(1).max(200) });
const Id = headerSafeId(200);

export const StateDelta = z
  .object({
    runId: Id,
    checkpoint: z.string().min(1).max(100),
    set: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const EventBody = z
  .object({ eventId: Id, type: z.string().min(1).max(100), payload: z.unknown(), stateDelta: StateDelta.optional() })
  .strict();

/** An event is taken once: a retry of the same event id (and body) is answered as a duplicate. */
const EVENT_ANSWERS = { 202: "accepted", 200: "the same event was already received (duplicate)" };

/**
 * Awaited inbound events. The agent's own key (its external sources post through it), or a principal's or
 * admin's user key, may post them.
 */
export function registerEventRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/agents/:agent/events",
      summary: "Post an awaited inbound event (held while the agent is paused, delivered in arrival order)",
      auth: "caller",
      params: Params,
      body: EventBody,
      responses: EVENT_ANSWERS,
    },
    async ({ auth: caller, body }, _request, reply) => {
      if (caller.kind === "user") requireOwner(caller, "post events");
      const result = await acceptEvent(ctx, caller.agent, body);
      switch (result.kind) {
        case "accepted":
          return reply.status(202).send({ ...result.receipt, duplicate: false });
        case "duplicate":
          return reply.status(200).send({ ...result.receipt, duplicate: true });
        case "conflict":
          throw new ApiError("conflict", `event '${body.eventId}' was already received with a different body`);
        case "invalid_transition":
          throw new ApiError("invalid_transition", result.why, "stateDelta.checkpoint");
      }
    },
  );
}
