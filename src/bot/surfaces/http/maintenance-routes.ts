import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseDurationMs } from "../../../policy/duration";
import type { HandlerContext } from "../../app/context";
import {
  endMaintenance,
  listInstances,
  type MaintenanceRefusal,
  startMaintenance,
} from "../../app/maintenance/windows";
import { ApiError } from "./errors";
import { decodeCursor, PageQuery, pageAnswer } from "./paging";
import { defineRoute } from "./route";

const InstanceName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "an instance name");
const StartBody = z
  .object({
    scope: z.enum(["instance", "deployment"]).optional(),
    instance: InstanceName.optional(),
    reason: z.string().min(1).max(500).optional(),
    drainTimeout: z
      .string()
      .max(20)
      .refine((v) => (parseDurationMs(v) ?? 0) >= 100, "a duration such as 30s")
      .transform((v) => parseDurationMs(v)!)
      .optional(),
  })
  .strict()
  .default({});
const WindowParams = z.object({ id: z.string().min(1).max(100) }).strict();
const InstancesQuery = z.object(PageQuery).strict();

function refused(result: MaintenanceRefusal): never {
  if (result.error === "forbidden") throw new ApiError("forbidden", "maintenance windows are for admins");
  if (result.error === "not_found") throw new ApiError("not_found", result.message);
  throw new ApiError("invalid_body", `${result.field}: ${result.message}`, result.field);
}

/** Maintenance windows and the processes of the deployment (admins): app/maintenance/windows.ts. */
export function registerMaintenanceRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/instances",
      summary: "Every bot process: state (or `lost`), start, last heartbeat, stop, and how its previous run ended",
      auth: "user",
      query: InstancesQuery,
    },
    async ({ auth: user, query }) => {
      const after = decodeCursor(InstanceName, query.cursor);
      const result = await listInstances(ctx, user, { limit: query.limit, ...(after ? { after } : {}) });
      if (!result.ok) refused(result);
      return pageAnswer(result.items, result.next);
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/maintenance",
      summary: "Opens a maintenance window: this process (default), a named one, or the whole deployment",
      auth: "user",
      body: StartBody,
      responses: { 201: "opened", 200: "a deployment-wide window was open already: that one" },
    },
    async ({ auth: user, body }, _request, reply) => {
      const { drainTimeout, ...rest } = body;
      const result = await startMaintenance(ctx, user, {
        ...rest,
        ...(drainTimeout ? { drainTimeoutMs: drainTimeout } : {}),
      });
      if (!result.ok) refused(result);
      return reply.status(result.opened ? 201 : 200).send(result.record);
    },
  );

  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/maintenance/:id/end",
      summary: "Lets a window go; a deployment-wide one releases what it held, once",
      auth: "user",
      params: WindowParams,
    },
    async ({ auth: user, params }) => {
      const result = await endMaintenance(ctx, user, params.id);
      if (!result.ok) refused(result);
      return { ...result.record, releases: result.releases };
    },
  );
}
