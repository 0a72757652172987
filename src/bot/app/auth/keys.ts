import { TOKEN_PREFIX, tokenVerdict } from "../../../policy/agent-tokens";
import { hashKey } from "../../../policy/key-hash";
import type { Standing } from "../../../policy/roles";
import { findAgentToken } from "../../../store/directory/agent-tokens";
import {
  findAgent,
  findAgentByKeyHash,
  findUserByKeyHash,
  type KnownAgent,
  type KnownUser,
  standingOf,
} from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

/**
 * Whose key a request carries: one of the tenant's users (an API key) or an agent, through its long-lived
 * agent key or a short-lived token minted with it (POST /v1/tokens).
 */
export type KeyHolder = { kind: "user"; user: KnownUser } | { kind: "agent"; agent: KnownAgent; via: "key" | "token" };

/** A token that was minted but no longer opens anything: a pause revoked it, or its time ran out. */
export type TokenRefusal = { kind: "refused"; reason: "token_revoked" | "token_expired" };

/**
 * The holder of a key among the kinds a door accepts, users first; null for an unknown key. Keys and tokens
 * are stored only as digests, so the key is hashed before any lookup.
 */
export async function keyHolder(
  ctx: HandlerContext,
  key: string,
  accepts: ReadonlyArray<KeyHolder["kind"]>,
): Promise<KeyHolder | TokenRefusal | null> {
  const hash = hashKey(key);
  if (accepts.includes("user")) {
    const user = await findUserByKeyHash(ctx.store.db, hash);
    if (user) return { kind: "user", user };
  }
  if (!accepts.includes("agent")) return null;
  const agent = await findAgentByKeyHash(ctx.store.db, hash);
  if (agent) return { kind: "agent", agent, via: "key" };
  if (!key.startsWith(TOKEN_PREFIX)) return null;
  const token = await findAgentToken(ctx.store.db, hash);
  if (!token) return null;
  const verdict = tokenVerdict(token, ctx.now());
  if (verdict === "valid") return { kind: "agent", agent: token.agent, via: "token" };
  return { kind: "refused", reason: verdict === "revoked" ? "token_revoked" : "token_expired" };
}

/** The user whose API key this is (the console's sign-in form takes the same keys as the API). */
export async function userOfKey(ctx: HandlerContext, key: string): Promise<KnownUser | null> {
  const holder = await keyHolder(ctx, key, ["user"]);
  return holder?.kind === "user" ? holder.user : null;
}

/** The tenant's agent of this name; another tenant's agent is simply not found. */
export const findTenantAgent = (ctx: HandlerContext, tenantId: string, name: string): Promise<KnownAgent | null> =>
  findAgent(ctx.store.db, tenantId, name);

/** A user's roles toward one agent, for the access rules (policy/access.ts). */
export const standingOfUser = (ctx: HandlerContext, user: KnownUser, agent: KnownAgent): Promise<Standing> =>
  standingOf(ctx.store.db, user, agent);
