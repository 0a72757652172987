import type { Db } from "../connection/client";

/**
 * Agents holding work that no open release covers. With their gate open, such rows are orphans: a tick or
 * an event that read the gate just before a resume committed, after that resume's release had finished.
 */
export async function uncoveredHeldAgents(db: Db): Promise<Array<{ agentId: string; tenantId: string }>> {
  const open = await db.release.findMany({ where: { state: "OPEN" }, select: { agentId: true, tenantId: true } });
  const coveredAgents = new Set(open.filter((r) => r.agentId).map((r) => r.agentId));
  const coveredTenants = new Set(open.filter((r) => !r.agentId).map((r) => r.tenantId));
  // Asked every reconcile tick, so each read seeks an index instead of reading every row ever recorded:
  // occurrences through (tenantId, state), one tenant at a time; events through (state, agentId).
  const tenantIds = (await db.tenant.findMany({ select: { id: true } })).map((t) => t.id);
  const [occurrences, events] = await Promise.all([
    db.occurrence.groupBy({ by: ["agentId", "tenantId"], where: { tenantId: { in: tenantIds }, state: "HELD" } }),
    db.inboxEvent.groupBy({ by: ["agentId", "tenantId"], where: { state: "HELD" } }),
  ]);
  const byAgent = new Map([...occurrences, ...events].map((r) => [r.agentId, r]));
  return [...byAgent.values()].filter((r) => !coveredAgents.has(r.agentId) && !coveredTenants.has(r.tenantId));
}
