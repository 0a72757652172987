import type { Db, Store } from "../connection/client";
import { rows, sqlText } from "../connection/sql";
import type { KnownUser } from "./directory";

/** The users of one tenant with these names; names of other tenants' users are simply not found. */
export async function findTenantUsers(db: Db, tenantId: string, names: readonly string[]): Promise<KnownUser[]> {
  return db.user.findMany({
    where: { tenantId, name: { in: [...names] } },
    select: { id: true, tenantId: true, name: true, isAdmin: true },
  });
}

const readNames = sqlText((d) => `SELECT "id", "name" FROM "User" WHERE "id" IN ${d.list}`);

/** Names by user id, in one statement of the store's own (every run view reads its reviewers' names). */
export async function userNames(store: Store, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const found = await store.sql.read(function* (d) {
    return yield* rows<{ id: string; name: string }>(readNames(d), ids);
  });
  return new Map(found.map((r) => [r.id, r.name]));
}

const readLedBy = sqlText(() => `SELECT "agentId" FROM "AgentRole" WHERE "userId" = ? AND "role" = 'principal'`);

/** The agents this user is principal of (they see their deliveries' full results). */
export async function agentsLedBy(store: Store, userId: string): Promise<Set<string>> {
  const found = await store.sql.read(function* (d) {
    return yield* rows<{ agentId: string }>(readLedBy(d), userId);
  });
  return new Set(found.map((r) => r.agentId));
}
