import type { Db } from "../connection/client";
import type { KnownUser } from "./directory";

/** The reviewers the directory lists for an agent (its `reviewers:`), ordered by name. */
export async function configuredReviewers(db: Db, agentId: string): Promise<KnownUser[]> {
  const roles = await db.agentRole.findMany({ where: { agentId, role: "reviewer" }, select: { userId: true } });
  return db.user.findMany({
    where: { id: { in: roles.map((r) => r.userId) } },
    select: { id: true, tenantId: true, name: true, isAdmin: true },
    orderBy: { name: "asc" },
  });
}
