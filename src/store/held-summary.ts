import type { Db } from "./client";

/**
 * Agents holding work that no open release covers. With their gate open, such rows are orphans: a tick or
 * an event that read the gate just before a resume committed, after that resume's release had finished.
 */
export async function uncoveredHeldAgents(db: Db): Promise<Array<{ agentId: string; tenantId: string }>> {
  const open = await db.release.findMany({ where: { state: "OPEN" }, select: { agentId: true, tenantId: true } });
  const coveredAgents = new Set(open.filter((r) => r.agentId).map((r) => r.agentId));
  const coveredTenants = new Set(open.filter((r) => !r.agentId).map((r) => r.tenantId));
  const [occurrences, events] = await Promise.all([
    db.occurrence.findMany({
      where: { state: "HELD" },
      distinct: ["agentId"],
      select: { agentId: true, tenantId: true },
    }),
    db.inboxEvent.findMany({
      where: { state: "HELD" },
      distinct: ["agentId"],
      select: { agentId: true, tenantId: true },
    }),
  ]);
  const byAgent = new Map([...occurrences, ...events].map((r) => [r.agentId, r]));
  return [...byAgent.values()].filter((r) => !coveredAgents.has(r.agentId) && !coveredTenants.has(r.tenantId));
}
