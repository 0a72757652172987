import { Validator } from "@seriousme/openapi-schema-validator";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { registerMessageRoutes } from "../../src/bot/surfaces/http/message-routes";
import { registeredRoutes } from "../../src/bot/surfaces/http/route";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import { createTestDatabase, type TestDatabase } from "../support/databases";

/** The chat platforms' webhooks stay outside the API document (each speaks its platform's format). */
const CHAT_WEBHOOKS = /^\/(slack|discord|telegram)\//;

/**
 * GET /openapi.json is generated from the routes' own zod schemas. It must validate as OpenAPI 3 with a
 * library validator, and hold every route Fastify registered (its onRoute hook), the chat webhooks aside.
 */
describe("GET /openapi.json", () => {
  let db: TestDatabase;
  let http: ReturnType<typeof buildHttpServer>;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    const ctx: HandlerContext = {
      store: db.store,
      log: pino({ level: "silent" }),
      now: () => new Date(),
      events: new HoldfastEvents(),
    };
    http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }) });
    // As the chat wiring does: the agent's messages route, and a platform webhook in a scope of its own.
    registerMessageRoutes(http, ctx, {});
    await http.register(async (scope) => {
      scope.post("/slack/events", async () => ({}));
    });
    await http.ready();
  });
  afterAll(async () => {
    await http.close();
    await db.drop();
  });

  it("validates as OpenAPI 3 with a library validator", async () => {
    const response = await http.inject({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toMatch(/^3\./);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("holds every registered route with its method, and no chat webhook", async () => {
    const document = (await http.inject({ method: "GET", url: "/openapi.json" })).json();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = registeredRoutes(http)
      .filter((route) => !CHAT_WEBHOOKS.test(route.url))
      .map((route) => `${route.method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
    expect(registered.length).toBeGreaterThan(20);
    expect(new Set(documented)).toEqual(new Set(registered));
    expect(registered).toEqual(
      expect.arrayContaining([
        "GET /v1/agents",
        "GET /v1/runs",
        "GET /v1/audit",
        "GET /metrics",
        "GET /healthz",
        "GET /openapi.json",
        "POST /v1/agents/{agent}/messages",
      ]),
    );
    expect(registeredRoutes(http).some((route) => route.url === "/slack/events")).toBe(true);
    expect(documented.some((op) => op.includes("/slack/"))).toBe(false);
  });

  it("describes each route from its zod schema: parameters, bodies, security", async () => {
    const document = (await http.inject({ method: "GET", url: "/openapi.json" })).json();
    const listRuns = document.paths["/v1/runs"].get;
    expect(listRuns.security).toEqual([{ userKey: [] }]);
    const state = listRuns.parameters.find((p: { name: string }) => p.name === "state");
    expect(state).toMatchObject({
      in: "query",
      required: false,
      schema: { enum: expect.arrayContaining(["waiting", "expired"]) },
    });
    const limit = listRuns.parameters.find((p: { name: string }) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 500 });
    const decide = document.paths["/v1/runs/{id}/decisions"].post;
    expect(decide.parameters[0]).toMatchObject({ name: "id", in: "path", required: true });
    expect(decide.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["eventId", "action", "version", "digest"]),
      additionalProperties: false,
    });
    // The packet is any JSON: a recursive schema, hoisted into components so its $ref resolves in the document.
    const create = document.paths["/v1/runs"].post.requestBody.content["application/json"].schema;
    const ref = create.properties.packet.$ref as string;
    expect(ref).toMatch(/^#\/components\/schemas\//);
    expect(document.components.schemas[ref.split("/").pop()!]).toBeDefined();
    expect(document.paths["/metrics"].get.responses["200"].content).toHaveProperty("text/plain");
    expect(document.info.description).toMatch(/slack\/events/);
  });
});
