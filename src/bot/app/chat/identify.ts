import { identityKey } from "../../../policy/ids";
import { findAgent, type KnownAgent, type KnownUser } from "../../../store/directory/directory";
import { findCaller, findDiscordUserInAnyGuild, listTenantAgents } from "../../../store/directory/identities";
import type { HandlerContext } from "../context";

/** Who spoke, as a chat platform names them (the surfaces' ChatActor has this shape). */
export interface PlatformIdentity {
  platform: "slack" | "discord" | "telegram" | "web";
  userId: string;
  /** Slack team id or Discord guild id; for the console, its tenant. */
  workspaceId?: string;
}

export type Identified = { ok: true; user: KnownUser } | { ok: false; code: "unknown_workspace" | "unknown_user" };

/**
 * Platform identity -> directory user of the right tenant. A Slack team or Discord guild must be configured
 * for some tenant; the identity must map to a user; and a user found through a workspace must belong to that
 * workspace's tenant (belt and braces).
 */
export async function identifyCaller(ctx: HandlerContext, actor: PlatformIdentity): Promise<Identified> {
  const { db } = ctx.store;
  // A Discord DM carries no guild: the user is looked for across the configured guilds.
  if (actor.platform === "discord" && !actor.workspaceId) {
    const user = await findDiscordUserInAnyGuild(db, actor.userId);
    return user ? { ok: true, user } : { ok: false, code: "unknown_user" };
  }
  if (actor.platform !== "telegram" && !actor.workspaceId) return { ok: false, code: "unknown_user" };
  const identity =
    actor.platform === "telegram"
      ? identityKey({ platform: "telegram", userId: actor.userId })
      : identityKey({ platform: actor.platform, workspaceId: actor.workspaceId!, userId: actor.userId });
  // The workspace's tenant and the user in one read; a console session names its tenant itself (its
  // identity is web:<tenant>:<user>).
  const workspace =
    actor.platform === "slack" || actor.platform === "discord"
      ? { platform: actor.platform, id: actor.workspaceId! }
      : null;
  const caller = await findCaller(ctx.store, identity, workspace);
  if (workspace && !caller.workspaceTenant) return { ok: false, code: "unknown_workspace" };
  const workspaceTenant = workspace ? caller.workspaceTenant : actor.platform === "web" ? actor.workspaceId! : null;
  const { user } = caller;
  if (!user || (workspaceTenant !== null && workspaceTenant !== user.tenantId))
    return { ok: false, code: "unknown_user" };
  return { ok: true, user };
}

/** The agents a chat command may be about: the caller's tenant's, by name, in one query. */
export const tenantAgents = (ctx: HandlerContext, tenantId: string): Promise<KnownAgent[]> =>
  listTenantAgents(ctx.store.db, tenantId);

/** One agent of the tenant by name, or null (another tenant's agent does not exist for it). */
export const tenantAgent = (ctx: HandlerContext, tenantId: string, name: string): Promise<KnownAgent | null> =>
  findAgent(ctx.store.db, tenantId, name);
