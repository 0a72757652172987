import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseContract } from "../../policy/delivery";
import { MAX_EVERY_MS } from "../../policy/limits";
import { MISFIRE_POLICIES } from "../../policy/misfire";
import { isValidCron, isValidTimeZone, parseEvery } from "../../policy/schedule";
import type { HandlerContext } from "../context";
import { registerTrigger, removeTrigger, triggersOf } from "../handlers/triggers";
import { callerForAgent, requireOwner } from "./caller";
import { ApiError } from "./errors";
import { parseBody } from "./validate";

const Params = z.object({ agent: z.string().min(1).max(200) });
const KeyParams = Params.extend({ key: z.string().min(1).max(200) });
const Key = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "use 1-100 letters, digits, '.', '_' or '-'");

const TriggerBody = z
  .object({
    key: Key,
    every: z.union([z.string(), z.number()]).optional(),
    anchor: z.iso
      .datetime({ offset: true })
      .transform((s) => new Date(s))
      .optional(),
    cron: z.string().min(1).max(200).optional(),
    tz: z.string().refine(isValidTimeZone, "unknown time zone").optional(),
    payload: z.unknown().optional(),
    destination: z.url({ protocol: /^https?$/ }),
    misfire: z.enum(MISFIRE_POLICIES as [string, ...string[]]).default("coalesce"),
    contract: z
      .string()
      .refine((c) => parseContract(c) !== null, "not a receiving contract")
      .default("none"),
  })
  .strict()
  .superRefine((body, issues) => {
    if ((body.every === undefined) === (body.cron === undefined)) {
      issues.addIssue({ code: "custom", path: ["every"], message: "give exactly one of every and cron" });
    }
    if (body.every !== undefined && parseEvery(body.every) === null) {
      issues.addIssue({ code: "custom", path: ["every"], message: "a duration such as '15m', or ms >= 50" });
    } else if (body.every !== undefined && parseEvery(body.every)! > MAX_EVERY_MS) {
      issues.addIssue({ code: "custom", path: ["every"], message: "at most 366 days" });
    }
    if (body.cron !== undefined && !isValidCron(body.cron, body.tz)) {
      issues.addIssue({ code: "custom", path: ["cron"], message: "not a valid cron pattern" });
    }
    if (body.anchor !== undefined && body.every === undefined) {
      issues.addIssue({ code: "custom", path: ["anchor"], message: "anchor applies to every triggers only" });
    }
    if (body.tz !== undefined && body.cron === undefined) {
      issues.addIssue({ code: "custom", path: ["tz"], message: "tz applies to cron triggers only" });
    }
  });

/** Cadence triggers: principals and admins register and delete them; any user of the tenant may list. */
export function registerTriggerRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  const { db } = ctx.store;

  app.post("/v1/agents/:agent/triggers", async (request, reply) => {
    const caller = await callerForAgent(db, request, Params.parse(request.params).agent);
    requireOwner(caller, "register triggers");
    const body = parseBody(TriggerBody, request.body);
    const view = await registerTrigger(ctx, caller.agent, {
      key: body.key,
      everyMs: body.every !== undefined ? parseEvery(body.every) : null,
      anchor: body.anchor ?? null,
      cron: body.cron ?? null,
      tz: body.tz ?? null,
      payload: body.payload ?? null,
      destination: body.destination,
      misfire: body.misfire as "coalesce" | "all" | "skip",
      contract: body.contract,
    });
    return reply.status(201).send(view);
  });

  app.get("/v1/agents/:agent/triggers", async (request) => {
    const caller = await callerForAgent(db, request, Params.parse(request.params).agent);
    if (caller.kind !== "user") throw new ApiError("forbidden", "triggers are listed with a user key");
    return { triggers: await triggersOf(ctx, caller.agent) };
  });

  app.delete("/v1/agents/:agent/triggers/:key", async (request) => {
    const params = KeyParams.parse(request.params);
    const caller = await callerForAgent(db, request, params.agent);
    requireOwner(caller, "delete triggers");
    if (!(await removeTrigger(ctx, caller.agent, params.key))) {
      throw new ApiError("not_found", `no trigger '${params.key}'`);
    }
    return { deleted: params.key };
  });
}
