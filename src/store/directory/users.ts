import type { Db } from "../connection/client";
import type { KnownUser } from "./directory";

/** The users of one tenant with these names; names of other tenants' users are simply not found. */
export async function findTenantUsers(db: Db, tenantId: string, names: readonly string[]): Promise<KnownUser[]> {
  return db.user.findMany({
    where: { tenantId, name: { in: [...names] } },
    select: { id: true, tenantId: true, name: true, isAdmin: true },
  });
}

/** Names by user id, in one read. */
export async function userNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } });
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The agents this user is principal of (they see their deliveries' full results). */
export async function agentsLedBy(db: Db, userId: string): Promise<Set<string>> {
  const rows = await db.agentRole.findMany({ where: { userId, role: "principal" }, select: { agentId: true } });
  return new Set(rows.map((r) => r.agentId));
}
