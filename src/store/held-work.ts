import type { Db } from "./client";

/** Outbox rows that have not left the building yet: a resume would send these. */
const UNDISPATCHED = ["PLANNED", "FAILED"];
/** Outbox rows whose effect is not confirmed yet (the oldest of these is the "oldest undelivered action"). */
const UNDELIVERED = ["PLANNED", "DISPATCHED", "FAILED"];

export interface HeldCounts {
  /** Held trigger occurrences, per trigger id, largest first. */
  occurrencesByTrigger: Array<{ triggerId: string; count: number }>;
  inboxEvents: number;
  outboxActions: number;
  needsReview: number;
}

/** What a resume of this agent would release, counted from the durable rows (design.md section 4). */
export async function countHeldWork(db: Db, agentId: string): Promise<HeldCounts> {
  const [occurrences, inboxEvents, outboxActions, needsReview] = await Promise.all([
    db.occurrence.groupBy({ by: ["triggerId"], where: { agentId, state: "HELD" }, _count: { _all: true } }),
    db.inboxEvent.count({ where: { agentId, state: "HELD" } }),
    db.outboxItem.count({ where: { agentId, state: { in: UNDISPATCHED } } }),
    db.outboxItem.count({ where: { agentId, state: "NEEDS_REVIEW" } }),
  ]);
  const occurrencesByTrigger = occurrences
    .map((row) => ({ triggerId: row.triggerId, count: row._count._all }))
    .sort((a, b) => b.count - a.count || a.triggerId.localeCompare(b.triggerId));
  return { occurrencesByTrigger, inboxEvents, outboxActions, needsReview };
}

export interface OldestWaits {
  approval: { runId: string; operation: string | null; since: Date } | null;
  undelivered: { id: string; destination: string; state: string; since: Date } | null;
}

export async function findOldestWaits(db: Db, agentId: string): Promise<OldestWaits> {
  const [run, item] = await Promise.all([
    db.run.findFirst({ where: { agentId, state: "waiting" }, orderBy: { createdAt: "asc" } }),
    db.outboxItem.findFirst({ where: { agentId, state: { in: UNDELIVERED } }, orderBy: { createdAt: "asc" } }),
  ]);
  return {
    approval: run ? { runId: run.id, operation: run.operation, since: run.createdAt } : null,
    undelivered: item ? { id: item.id, destination: item.destination, state: item.state, since: item.createdAt } : null,
  };
}
