import { userId } from "../../policy/ids";
import type { Db } from "../connection/client";
import type { KnownAgent } from "../directory/directory";

/**
 * The user ids behind each `notify` entry, for one agent: its roles, the tenant's admins, or a named user
 * of its tenant. Read when an item starts escalating, and kept in the snapshot.
 */
export async function notifyResolver(db: Db, agent: KnownAgent): Promise<(notify: string[]) => string[]> {
  const [supervisors, admins] = await Promise.all([
    db.agentRole.findMany({ where: { agentId: agent.id, role: "supervisor" }, select: { userId: true } }),
    db.user.findMany({ where: { tenantId: agent.tenantId, isAdmin: true }, select: { id: true } }),
  ]);
  const roles: Record<string, string[]> = {
    secondaryManager: agent.secondaryManagerId ? [agent.secondaryManagerId] : [],
    principal: agent.principalId ? [agent.principalId] : [],
    supervisors: supervisors.map((s) => s.userId),
    admins: admins.map((a) => a.id),
  };
  return (notify) => [...new Set(notify.flatMap((name) => roles[name] ?? [userId(agent.tenantId, name)]))];
}
