import type { FastifyInstance, FastifyRequest } from "fastify";
import { findNul, jsonDeeperThan, MAX_JSON_DEPTH } from "../../../policy/limits";
import { ApiError } from "./errors";

const fieldOf = (path: Array<string | number>) => path.join(".") || "body";

/**
 * Every JSON body of the API: nesting is bounded (a deep body would overflow the stack of whatever walks it)
 * and no string may hold NUL (PostgreSQL refuses it in text, and answered 500). Prototype-poisoning keys
 * stay refused as Fastify's own parser does.
 */
export function registerJsonBodyRules(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new ApiError("invalid_json", `request body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parse(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const nul = findNul(value);
      if (nul) return done(new ApiError("invalid_body", `${fieldOf(nul)}: must not contain NUL`, fieldOf(nul)));
      done(null, value);
    });
  });
  // Path parameters and the query string are strings too.
  app.addHook("preValidation", async (request: FastifyRequest) => {
    for (const [where, value] of [
      ["params", request.params],
      ["query", request.query],
    ] as const) {
      const nul = findNul(value);
      if (nul) throw new ApiError("invalid_body", `${where}.${fieldOf(nul)}: must not contain NUL`, fieldOf(nul));
    }
  });
}
