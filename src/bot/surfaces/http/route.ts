import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { HandlerContext } from "../../app/context";
import { type Authenticated, authenticate, type RouteAuth } from "./auth";
import { parseBody } from "./validate";

type ZObject = z.ZodType<Record<string, unknown>>;

export interface RouteSpec<A extends RouteAuth, P extends ZObject, Q extends ZObject, B extends z.ZodType> {
  method: "GET" | "POST" | "DELETE";
  /** Fastify's form, `/v1/runs/:id`. */
  url: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  bodyLimit?: number;
  /** Success statuses and what they mean; default `{ 200: "OK" }`. Errors are documented for every route. */
  responses?: Record<number, string>;
  /** The success body's media type when it is not JSON (`/metrics`). */
  produces?: string;
}

export interface RouteInput<A extends RouteAuth, P, Q, B> {
  auth: Authenticated[A];
  params: P;
  query: Q;
  body: B;
}

/** What `/openapi.json` is built from: every route declared through `defineRoute`, in declaration order. */
export type DeclaredRoute = RouteSpec<RouteAuth, ZObject, ZObject, z.ZodType>;

interface RouteTable {
  ctx: HandlerContext;
  routes: DeclaredRoute[];
  /** Every route Fastify registered on this app (its onRoute hook), declared or not: the test's yardstick. */
  registered: Array<{ method: string; url: string }>;
}

declare module "fastify" {
  interface FastifyInstance {
    holdfastRoutes: RouteTable;
  }
}

/** Makes `defineRoute` usable on this app (its own table, so several apps in one process stay apart). */
export function enableDeclaredRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  const table: RouteTable = { ctx, routes: [], registered: [] };
  app.decorate("holdfastRoutes", table);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat())
      if (method !== "HEAD") table.registered.push({ method, url: route.url });
  });
}

export const declaredRoutes = (app: FastifyInstance): readonly DeclaredRoute[] => app.holdfastRoutes.routes;
export const registeredRoutes = (app: FastifyInstance) => app.holdfastRoutes.registered;

/**
 * Registers one route and records it for the OpenAPI document. Before the handler runs, in this order: the
 * path (for `caller`), the key, the path, the query, the body, each checked by its zod schema; a bad field is
 * a 400 `invalid_body` naming it (validate.ts), an unknown key a 401.
 */
export function defineRoute<
  A extends RouteAuth,
  P extends ZObject = z.ZodType<Record<string, never>>,
  Q extends ZObject = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
>(
  app: FastifyInstance,
  spec: RouteSpec<A, P, Q, B>,
  handler: (
    input: RouteInput<A, z.infer<P>, z.infer<Q>, z.infer<B>>,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<unknown>,
): void {
  const table = app.holdfastRoutes;
  table.routes.push(spec as unknown as DeclaredRoute);
  app.route({
    method: spec.method,
    url: spec.url,
    ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
    handler: async (request, reply) => {
      const params = () => (spec.params ? parseBody(spec.params, request.params) : {});
      let parsedParams: unknown;
      if (spec.auth === "caller") parsedParams = params();
      const auth = await authenticate(table.ctx, spec.auth, request, (parsedParams as { agent?: string })?.agent);
      if (spec.auth !== "caller") parsedParams = params();
      const query = spec.query ? parseBody(spec.query, request.query) : {};
      const body = spec.body ? parseBody(spec.body, request.body) : undefined;
      return handler(
        { auth, params: parsedParams, query, body } as RouteInput<A, z.infer<P>, z.infer<Q>, z.infer<B>>,
        request,
        reply,
      );
    },
  });
}
