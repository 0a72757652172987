import type { Db } from "./client";
import { heldOccurrencesByTrigger } from "./occurrences";

/** What a resume would release for one agent: the numbers of the resume preflight (design.md section 4). */
export interface HeldSummary {
  occurrencesByTrigger: Record<string, number>;
  heldOccurrences: number;
  inboundEvents: number;
  /** Outbox items planned but not sent: held approved actions (and deliveries planned just before a pause). */
  outboxActions: number;
  needsReview: number;
}

export async function heldSummary(db: Db, agentId: string): Promise<HeldSummary> {
  const occurrencesByTrigger = await heldOccurrencesByTrigger(db, agentId);
  const [inboundEvents, outboxActions, needsReview] = await Promise.all([
    db.inboxEvent.count({ where: { agentId, state: { in: ["HELD", "PENDING", "RELEASED"] } } }),
    db.outboxItem.count({ where: { agentId, state: "PLANNED" } }),
    db.outboxItem.count({ where: { agentId, state: "NEEDS_REVIEW" } }),
  ]);
  const heldOccurrences = Object.values(occurrencesByTrigger).reduce((a, b) => a + b, 0);
  return { occurrencesByTrigger, heldOccurrences, inboundEvents, outboxActions, needsReview };
}

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

export async function findAgentById(db: Db, id: string) {
  return db.agent.findUnique({ where: { id }, select: { id: true, tenantId: true, name: true } });
}
