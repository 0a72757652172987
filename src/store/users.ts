import type { Db } from "./client";
import type { KnownUser } from "./directory";

/** The users of one tenant with these names; names of other tenants' users are simply not found. */
export async function findTenantUsers(db: Db, tenantId: string, names: readonly string[]): Promise<KnownUser[]> {
  return db.user.findMany({
    where: { tenantId, name: { in: [...names] } },
    select: { id: true, tenantId: true, name: true, isAdmin: true },
  });
}
