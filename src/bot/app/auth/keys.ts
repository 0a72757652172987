import { hashKey } from "../../../policy/key-hash";
import type { Standing } from "../../../policy/roles";
import {
  findAgent,
  findAgentByKeyHash,
  findUserByKeyHash,
  type KnownAgent,
  type KnownUser,
  standingOf,
} from "../../../store/directory/directory";
import type { HandlerContext } from "../context";

/** Whose key a request carries: one of the tenant's users (an API key) or an agent (its agent key). */
export type KeyHolder = { kind: "user"; user: KnownUser } | { kind: "agent"; agent: KnownAgent };

/**
 * The holder of a key among the kinds a door accepts, users first; null for an unknown key. Keys are
 * stored only as digests, so the key is hashed before any lookup.
 */
export async function keyHolder(
  ctx: HandlerContext,
  key: string,
  accepts: ReadonlyArray<KeyHolder["kind"]>,
): Promise<KeyHolder | null> {
  const hash = hashKey(key);
  if (accepts.includes("user")) {
    const user = await findUserByKeyHash(ctx.store.db, hash);
    if (user) return { kind: "user", user };
  }
  if (accepts.includes("agent")) {
    const agent = await findAgentByKeyHash(ctx.store.db, hash);
    if (agent) return { kind: "agent", agent };
  }
  return null;
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
