import { findAgent, findUserByIdentity, type KnownAgent, type KnownUser } from "../../../store/directory/directory";
import {
  findDiscordUserInAnyGuild,
  findTenantByWorkspace,
  listTenantAgents,
} from "../../../store/directory/identities";
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
  let workspaceTenant: string | null = null;
  // A console session names its tenant itself (its identity is web:<tenant>:<user>).
  if (actor.platform === "web") workspaceTenant = actor.workspaceId ?? null;
  else if (actor.platform !== "telegram" && actor.workspaceId) {
    workspaceTenant = await findTenantByWorkspace(db, actor.platform, actor.workspaceId);
    if (!workspaceTenant) return { ok: false, code: "unknown_workspace" };
  }
  const user =
    actor.platform === "telegram"
      ? await findUserByIdentity(db, `telegram:${actor.userId}`)
      : actor.workspaceId
        ? await findUserByIdentity(db, `${actor.platform}:${actor.workspaceId}:${actor.userId}`)
        : actor.platform === "discord"
          ? await findDiscordUserInAnyGuild(db, actor.userId)
          : null;
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
