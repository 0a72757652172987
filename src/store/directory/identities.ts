import type { Db } from "../connection/client";
import type { KnownAgent, KnownUser } from "./directory";
import { findUserByIdentity, toKnownAgent } from "./directory";

/** The tenant a Slack team or Discord guild belongs to; null when that workspace is not configured. */
export async function findTenantByWorkspace(
  db: Db,
  platform: "slack" | "discord",
  workspaceId: string,
): Promise<string | null> {
  const where = platform === "slack" ? { slackTeamId: workspaceId } : { discordGuildId: workspaceId };
  const row = await db.tenant.findFirst({ where, select: { id: true } });
  return row?.id ?? null;
}

/**
 * A Discord DM carries no guild, so the user is found by their Discord user id across configured guilds.
 * Config validation makes a platform identity belong to one user; if two guilds still claimed the same
 * person, the answer would be ambiguous and nobody is returned.
 */
export async function findDiscordUserInAnyGuild(db: Db, discordUserId: string): Promise<KnownUser | null> {
  const rows = await db.identity.findMany({
    where: { id: { startsWith: "discord:", endsWith: `:${discordUserId}` } },
    take: 2,
  });
  if (rows.length !== 1) return null;
  return findUserByIdentity(db, rows[0]!.id);
}

/** Every agent of a tenant, by name, in one query (a chat command picks its target among them). */
export async function listTenantAgents(db: Db, tenantId: string): Promise<KnownAgent[]> {
  const rows = await db.agent.findMany({ where: { tenantId }, orderBy: { name: "asc" } });
  return rows.map(toKnownAgent);
}

/** Chat identities of these users, as (user, platform, the platform's own user id). Web identities are left out. */
export async function listChatIdentities(
  db: Db,
  userIds: readonly string[],
): Promise<Array<{ userId: string; platform: "slack" | "discord" | "telegram"; platformUserId: string }>> {
  const rows = await db.identity.findMany({ where: { userId: { in: [...userIds] } }, orderBy: { id: "asc" } });
  return rows.flatMap((row) => {
    const platform = row.id.slice(0, row.id.indexOf(":"));
    if (platform !== "slack" && platform !== "discord" && platform !== "telegram") return [];
    return [{ userId: row.userId, platform, platformUserId: row.id.slice(row.id.lastIndexOf(":") + 1) }];
  });
}
