import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { findAgentByKeyHash, findUserByKeyHash } from "../../store/directory";
import { hashKey } from "../config/secrets";
import type { HandlerContext } from "../context";
import { runCheckpointView } from "../handlers/run-checkpoint-view";
import { bearerToken } from "./auth";
import { ApiError } from "./errors";

const Params = z.object({ id: z.string().min(1).max(200) });

/**
 * GET /v1/runs/:id with the run's checkpoint and state variables. Any user of the run's tenant may read it,
 * and so may the run's own agent (with its key), which reads its position here after a pause.
 */
export function registerRunCheckpointRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  const { db } = ctx.store;
  app.get("/v1/runs/:id", async (request) => {
    const { id } = Params.parse(request.params);
    const token = bearerToken(request);
    const hash = token ? hashKey(token) : null;
    const user = hash ? await findUserByKeyHash(db, hash) : null;
    const agent = !user && hash ? await findAgentByKeyHash(db, hash) : null;
    if (!user && !agent)
      throw new ApiError("unauthorized", "a valid API key is required (Authorization: Bearer <key>)");
    const view = await runCheckpointView(db, id, (user ?? agent)!.tenantId);
    if (!view || (agent && view.agent !== agent.name)) throw new ApiError("not_found", `no run '${id}'`);
    return view;
  });
}
