import crypto from "node:crypto";
import { TOKEN_PREFIX } from "../../../policy/agent-tokens";
import { hashKey } from "../../../policy/key-hash";
import { insertAgentToken } from "../../../store/directory/agent-tokens";
import type { KnownAgent } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

export interface MintedToken {
  token: string;
  expiresAt: Date;
}

/**
 * A fresh token for this agent, valid `ttlSeconds` (the route has checked the bounds). Only its digest is
 * written, so the token exists nowhere but in this answer; the log names the agent and the expiry, never it.
 */
export async function mintAgentToken(ctx: HandlerContext, agent: KnownAgent, ttlSeconds: number): Promise<MintedToken> {
  const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await insertAgentToken(ctx.store.db, { hash: hashKey(token), agent, now, expiresAt });
  ctx.log.info({ agent: agent.id, expiresAt: expiresAt.toISOString() }, "agent token minted");
  return { token, expiresAt };
}
