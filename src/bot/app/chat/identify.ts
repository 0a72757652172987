import { identityKey } from "../../../policy/ids";
import type { DecisionFacts } from "../../../store/approvals/decisions";
import { findChatButton, type StoredButton } from "../../../store/chat/buttons";
import { findAgent, type KnownAgent, type KnownUser } from "../../../store/directory/directory";
import {
  type Caller,
  findCaller,
  findCallerAndButton,
  findDiscordUserInAnyGuild,
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
  return (await identify(ctx, actor, null)).caller;
}

/** What a click's read brought besides its caller; undefined where it was not read. */
interface ClickReads {
  button?: StoredButton | null;
  facts?: DecisionFacts | null;
}

/**
 * `identifyCaller`, the stored button a click names (null: none by that token, or the caller is refused) and,
 * when the button names a run, that run's decision facts for this click (`facts`; undefined when not read),
 * in the caller's own statement where there is one. The button is the caller's to use only after
 * `ownedButton`'s checks, and the facts are the decision's only where `recordDecision` says so.
 */
export async function identifyClicker(
  ctx: HandlerContext,
  actor: PlatformIdentity,
  click: { token: string; eventId: string },
): Promise<{ caller: Identified; button: StoredButton | null; facts?: DecisionFacts | null }> {
  const { caller, button, facts } = await identify(ctx, actor, click);
  if (!caller.ok) return { caller, button: null };
  return { caller, button: button === undefined ? await findChatButton(ctx.store, click.token) : button, facts };
}

/** A Discord DM's caller is found without a statement of ours: its click's reads are left undefined. */
async function identify(
  ctx: HandlerContext,
  actor: PlatformIdentity,
  click: { token: string; eventId: string } | null,
): Promise<{ caller: Identified } & ClickReads> {
  const refused = (code: "unknown_workspace" | "unknown_user") => ({ caller: { ok: false as const, code } });
  // A Discord DM carries no guild: the user is looked for across the configured guilds.
  if (actor.platform === "discord" && !actor.workspaceId) {
    const user = await findDiscordUserInAnyGuild(ctx.store.db, actor.userId);
    return user ? { caller: { ok: true, user } } : refused("unknown_user");
  }
  if (actor.platform !== "telegram" && !actor.workspaceId) return refused("unknown_user");
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
  const read: Caller & ClickReads =
    click === null
      ? await findCaller(ctx.store, identity, workspace)
      : await findCallerAndButton(ctx.store, identity, workspace, { buttonId: click.token, eventId: click.eventId });
  const { button, facts, ...found } = read;
  if (workspace && !found.workspaceTenant) return refused("unknown_workspace");
  const workspaceTenant = workspace ? found.workspaceTenant : actor.platform === "web" ? actor.workspaceId! : null;
  const { user } = found;
  if (!user || (workspaceTenant !== null && workspaceTenant !== user.tenantId)) return refused("unknown_user");
  return { caller: { ok: true, user }, button, facts };
}

/** The agents a chat command may be about: the caller's tenant's, by name, in one query. */
export const tenantAgents = (ctx: HandlerContext, tenantId: string): Promise<KnownAgent[]> =>
  listTenantAgents(ctx.store.db, tenantId);

/** One agent of the tenant by name, or null (another tenant's agent does not exist for it). */
export const tenantAgent = (ctx: HandlerContext, tenantId: string, name: string): Promise<KnownAgent | null> =>
  findAgent(ctx.store.db, tenantId, name);
