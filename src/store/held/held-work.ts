import { INBOX_WAITING, OUTBOX_UNDELIVERED } from "../../policy/states";
import type { Db } from "../connection/client";
import { heldOccurrencesByTrigger } from "./occurrences";

/** What a resume of this agent would release, counted from the durable rows (design.md section 4). */
export interface HeldCounts {
  /** Held trigger occurrences in all, and per trigger key. */
  occurrences: number;
  occurrencesByTrigger: Record<string, number>;
  /** Inbound events not yet delivered to the agent (held, or queued behind an earlier one). */
  inboundEvents: number;
  /** Outbox items planned but not sent: held approved actions (and deliveries planned just before a pause). */
  outboxActions: number;
  needsReview: number;
}

export async function countHeldWork(db: Db, agentId: string): Promise<HeldCounts> {
  const [occurrencesByTrigger, inboundEvents, outboxActions, needsReview] = await Promise.all([
    heldOccurrencesByTrigger(db, agentId),
    db.inboxEvent.count({ where: { agentId, state: { in: INBOX_WAITING } } }),
    db.outboxItem.count({ where: { agentId, state: "PLANNED" } }),
    db.outboxItem.count({ where: { agentId, state: "NEEDS_REVIEW" } }),
  ]);
  const occurrences = Object.values(occurrencesByTrigger).reduce((a, b) => a + b, 0);
  return { occurrences, occurrencesByTrigger, inboundEvents, outboxActions, needsReview };
}

export interface OldestWaits {
  approval: { runId: string; operation: string | null; since: Date } | null;
  undelivered: { id: string; destination: string; state: string; since: Date } | null;
}

export async function findOldestWaits(db: Db, agentId: string): Promise<OldestWaits> {
  const [run, item] = await Promise.all([
    db.run.findFirst({ where: { agentId, state: "waiting" }, orderBy: { createdAt: "asc" } }),
    db.outboxItem.findFirst({ where: { agentId, state: { in: OUTBOX_UNDELIVERED } }, orderBy: { createdAt: "asc" } }),
  ]);
  return {
    approval: run ? { runId: run.id, operation: run.operation, since: run.createdAt } : null,
    undelivered: item ? { id: item.id, destination: item.destination, state: item.state, since: item.createdAt } : null,
  };
}
