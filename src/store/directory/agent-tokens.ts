import type { Db, Tx } from "../connection/client";
import { type KnownAgent, toKnownAgent } from "./directory";

export interface NewAgentToken {
  /** The SHA-256 of the token (policy/key-hash.ts); the token itself is never stored. */
  hash: string;
  agent: KnownAgent;
  now: Date;
  expiresAt: Date;
}

export async function insertAgentToken(db: Db, token: NewAgentToken): Promise<void> {
  await db.agentToken.create({
    data: {
      id: token.hash,
      agentId: token.agent.id,
      tenantId: token.agent.tenantId,
      createdAt: token.now,
      expiresAt: token.expiresAt,
    },
  });
}

export interface FoundAgentToken {
  agent: KnownAgent;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** The token of this hash with its agent, whatever its state (the caller tells expired from revoked). */
export async function findAgentToken(db: Db, hash: string): Promise<FoundAgentToken | null> {
  const token = await db.agentToken.findUnique({ where: { id: hash } });
  if (!token) return null;
  const row = await db.agent.findUnique({ where: { id: token.agentId } });
  return row ? { agent: toKnownAgent(row), expiresAt: token.expiresAt, revokedAt: token.revokedAt } : null;
}

/** Whose outstanding tokens a pause revokes: one agent's, a tenant's agents', or every agent's. */
export type TokenHolders = { agentId: string } | { tenantId: string } | "all";

/**
 * Revokes every token of these holders that is neither revoked nor expired, in the pause's own transaction,
 * so no process honours one after the pause committed; the count revoked.
 */
export async function revokeAgentTokens(db: Db | Tx, holders: TokenHolders, now: Date): Promise<number> {
  const whose = holders === "all" ? {} : holders;
  const revoked = await db.agentToken.updateMany({
    where: { ...whose, revokedAt: null, expiresAt: { gt: now } },
    data: { revokedAt: now },
  });
  return revoked.count;
}

/** How many of an agent's tokens were revoked at or after a time (the pause it is resuming from). */
export async function countRevokedTokens(db: Db, agentId: string, since: Date): Promise<number> {
  return db.agentToken.count({ where: { agentId, revokedAt: { gte: since } } });
}
