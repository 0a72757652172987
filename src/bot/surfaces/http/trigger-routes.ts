import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseContract } from "../../../policy/delivery";
import { MAX_EVERY_MS } from "../../../policy/limits";
import { MISFIRE_POLICIES } from "../../../policy/misfire";
import { isValidCron, isValidTimeZone, parseEvery } from "../../../policy/schedule";
import type { HandlerContext } from "../../app/context";
import { registerTrigger, removeTrigger, triggerPageOf } from "../../app/held/triggers";
import { requireOwner } from "./auth";
import { ApiError } from "./errors";
import { decodeCursor, PageQuery, pageAnswer } from "./paging";
import { defineRoute } from "./route";

const Params = z.object({ agent: z.string().min(1).max(200) });
const KeyParams = Params.extend({ key: z.string().min(1).max(200) });
const Key = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "use 1-100 letters, digits, '.', '_' or '-'");

const ListQuery = z.object(PageQuery).strict();

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
    // Checked against the agent's declared destinations (exact match) by the handler.
    destination: z.string().min(1).max(2000),
    misfire: z.enum(MISFIRE_POLICIES as [string, ...string[]]).default("coalesce"),
    // Optional: the destination's contract comes from config; if given, it must be that one.
    contract: z
      .string()
      .refine((c) => parseContract(c) !== null, "not a receiving contract")
      .optional(),
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
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/agents/:agent/triggers",
      summary: "Register (or replace) a cadence trigger",
      auth: "caller",
      params: Params,
      body: TriggerBody,
      responses: { 201: "registered" },
    },
    async ({ auth: caller, body }, _request, reply) => {
      requireOwner(caller, "register triggers");
      const result = await registerTrigger(ctx, caller.agent, {
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
      if (result.kind === "invalid")
        throw new ApiError("invalid_body", `${result.field}: ${result.message}`, result.field);
      if (result.kind === "quota_exceeded") throw new ApiError("quota_exceeded", result.message);
      return reply.status(201).send(result.trigger);
    },
  );

  defineRoute(
    app,
    {
      method: "GET",
      url: "/v1/agents/:agent/triggers",
      summary: "An agent's triggers by key",
      auth: "caller",
      params: Params,
      query: ListQuery,
    },
    async ({ auth: caller, query }) => {
      if (caller.kind !== "user") throw new ApiError("forbidden", "triggers are listed with a user key");
      const page = await triggerPageOf(ctx, caller.agent, query.limit, decodeCursor(z.string(), query.cursor));
      return pageAnswer(page.items, page.next);
    },
  );

  defineRoute(
    app,
    {
      method: "DELETE",
      url: "/v1/agents/:agent/triggers/:key",
      summary: "Delete a trigger",
      auth: "caller",
      params: KeyParams,
    },
    async ({ auth: caller, params }) => {
      requireOwner(caller, "delete triggers");
      if (!(await removeTrigger(ctx, caller.agent, params.key))) {
        throw new ApiError("not_found", `no trigger '${params.key}'`);
      }
      return { deleted: params.key };
    },
  );
}
