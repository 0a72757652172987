import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { DEFAULT_TOKEN_TTL_S, MAX_TOKEN_TTL_S } from "../../../policy/agent-tokens";
import { mintAgentToken } from "../../app/auth/agent-tokens";
import type { HandlerContext } from "../../app/context";
import { defineRoute } from "./route";

const TokenBody = z
  .object({
    ttl: z
      .number()
      .int("ttl is a whole number of seconds")
      .min(1, "ttl is at least 1 second")
      .max(MAX_TOKEN_TTL_S, `ttl is at most ${MAX_TOKEN_TTL_S} seconds`)
      .optional(),
  })
  .strict()
  .optional();

/** Short-lived agent tokens (design.md section 12): minted with the long-lived key, revoked by any pause. */
export function registerTokenRoutes(app: FastifyInstance, ctx: HandlerContext): void {
  defineRoute(
    app,
    {
      method: "POST",
      url: "/v1/tokens",
      summary: "Mint a short-lived token for the agent whose key this is",
      description:
        `The token acts as the agent's key on the API and on /mcp, for \`ttl\` seconds (default ${DEFAULT_TOKEN_TTL_S}, ` +
        `at most ${MAX_TOKEN_TTL_S}). A pause of the agent, its tenant or the deployment revokes it (401 ` +
        "token_revoked); an expired one is 401 token_expired. Only the agent's long-lived key mints: a person's key " +
        "or a token is a 403.",
      auth: "agentKey",
      body: TokenBody,
      responses: { 201: "the token and when it expires" },
    },
    async ({ auth: agent, body }, _request, reply) => {
      const minted = await mintAgentToken(ctx, agent, body?.ttl ?? DEFAULT_TOKEN_TTL_S);
      return reply.status(201).send({ token: minted.token, expiresAt: minted.expiresAt.toISOString() });
    },
  );
}
