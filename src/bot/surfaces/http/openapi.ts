import { createHash } from "node:crypto";
import { z } from "zod";
import type { RouteAuth } from "./auth";
import type { DeclaredRoute } from "./route";

/**
 * The OpenAPI 3.1 document of every route declared with `defineRoute`, built from the same zod schemas the
 * routes validate with (zod's `toJSONSchema`, input side: what a client sends). JSON Schema 2020-12 is
 * OpenAPI 3.1's own dialect, so the schemas go in as they are; only their local `$defs` move into
 * `components.schemas`, because a `$ref` inside the document resolves against the document.
 */
export function openApiDocument(routes: readonly DeclaredRoute[], info: { version: string }) {
  const components: Record<string, unknown> = { Error: ERROR_SCHEMA };
  const schemaOf = (schema: z.ZodType) =>
    hoist(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }), components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const parameters = [
      ...parametersOf(route.params, "path", schemaOf),
      ...parametersOf(route.query, "query", schemaOf),
    ];
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: operationId(route),
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags ?? [route.url.split("/")[2] ?? "service"],
      ...(SECURITY[route.auth] ? { security: SECURITY[route.auth] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(route.body) } } } }
        : {}),
      responses: responsesOf(route),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Holdfast API",
      version: info.version,
      description:
        "Holdfast's HTTP API: runs and decisions, pause and resume, triggers, events, the outbox, the operator's " +
        "lists, health and metrics. Every list answers `{ items, nextCursor }`; every refusal answers " +
        "`{ error, message, field? }`. The chat platforms' webhooks (POST /slack/events, " +
        "/discord/interactions, /telegram/<secret path>) are not part of this API and not listed here: each is " +
        "signed by its platform and speaks that platform's format.",
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        userKey: { type: "http", scheme: "bearer", description: "A user's API key (config `users[].apiKey`)." },
        agentKey: { type: "http", scheme: "bearer", description: "An agent's key (config `agents[].agentKey`)." },
        agentToken: {
          type: "http",
          scheme: "bearer",
          description: "A short-lived agent token (POST /v1/tokens); a pause revokes it.",
        },
        metricsToken: { type: "http", scheme: "bearer", description: "HOLDFAST_METRICS_TOKEN, when it is set." },
      },
    },
  };
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>> | undefined> = {
  user: [{ userKey: [] }],
  agent: [{ agentKey: [] }, { agentToken: [] }],
  agentKey: [{ agentKey: [] }],
  agentOrUser: [{ userKey: [] }, { agentKey: [] }, { agentToken: [] }],
  caller: [{ userKey: [] }, { agentKey: [] }, { agentToken: [] }],
  metrics: [{}, { metricsToken: [] }],
  none: undefined,
};

const ERROR_SCHEMA = {
  type: "object",
  required: ["error", "message"],
  properties: {
    error: { type: "string", description: "a stable code: invalid_body, unauthorized, not_found, stale, ..." },
    message: { type: "string" },
    field: { type: "string", description: "the first bad field, for invalid_body" },
  },
};

function operationId(route: DeclaredRoute): string {
  const words = route.url
    .split("/")
    .filter((part) => part && part !== "v1")
    .map((part) => (part.startsWith(":") ? `by-${part.slice(1)}` : part));
  return [route.method.toLowerCase(), ...words]
    .join("-")
    .replace(/[^A-Za-z0-9]+(.)/g, (_m, c: string) => c.toUpperCase());
}

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

function parametersOf(schema: z.ZodType | undefined, where: "path" | "query", schemaOf: (s: z.ZodType) => JsonSchema) {
  if (!schema) return [];
  const json = schemaOf(schema);
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: property,
  }));
}

function responsesOf(route: DeclaredRoute) {
  const media = route.produces ?? "application/json";
  const ok = Object.entries(route.responses ?? { 200: "OK" }).map(([status, description]) => [
    status,
    {
      description,
      content: { [media]: { schema: media === "application/json" ? { type: "object" } : { type: "string" } } },
    },
  ]);
  const error = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  return {
    ...Object.fromEntries(ok),
    "4XX": { description: "refused: nothing changed", ...error },
    "5XX": { description: "the service could not answer", ...error },
  };
}

/** Moves a schema's `$defs` into the document's components (named by content, so shared ones are one). */
function hoist(schema: Record<string, unknown>, components: Record<string, unknown>): JsonSchema {
  const { $schema: _dialect, $defs, ...rest } = schema as { $schema?: string; $defs?: Record<string, unknown> };
  const names = new Map<string, string>();
  for (const [local, def] of Object.entries($defs ?? {})) {
    names.set(local, `Schema${createHash("sha256").update(JSON.stringify(def)).digest("hex").slice(0, 10)}`);
  }
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => {
        if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/$defs/")) {
          return [key, `#/components/schemas/${names.get(inner.slice("#/$defs/".length))}`];
        }
        return [key, rewrite(inner)];
      }),
    );
  };
  for (const [local, def] of Object.entries($defs ?? {})) components[names.get(local)!] = rewrite(def);
  return rewrite(rest) as JsonSchema;
}
