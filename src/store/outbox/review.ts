import type { Db, Store } from "../connection/client";
import { rows, sqlText } from "../connection/sql";
import { type OutboxItem, type OutboxRow, type OutboxState, outboxItemOf } from "./types";

/** Which NEEDS_REVIEW items a bulk reconcile takes: all of the tenant's, narrowed by each filter given. */
export interface ReviewFilter {
  agentId?: string;
  destination?: string;
  /** Only items planned before this time. */
  createdBefore?: Date;
  limit: number;
}

/** The tenant's NEEDS_REVIEW items that match, oldest first (reading only; each is then reconciled alone). */
export async function findReviewItems(db: Db, tenantId: string, filter: ReviewFilter): Promise<OutboxItem[]> {
  const rows = await db.outboxItem.findMany({
    where: {
      tenantId,
      state: "NEEDS_REVIEW",
      ...(filter.agentId ? { agentId: filter.agentId } : {}),
      ...(filter.destination ? { destination: filter.destination } : {}),
      ...(filter.createdBefore ? { createdAt: { lt: filter.createdBefore } } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: filter.limit,
  });
  return rows.map(outboxItemOf);
}

const readRunDelivery = sqlText(
  () => `SELECT * FROM "OutboxItem" WHERE "runId" = ? ORDER BY "createdAt" DESC, "id" DESC LIMIT 1`,
);

/** The latest outbox item of a run: its delivery state, kept apart from the approval state. */
export async function findRunDelivery(store: Store, runId: string): Promise<OutboxItem | null> {
  const [row] = await store.sql.read(function* (d) {
    return yield* rows<OutboxRow>(readRunDelivery(d), runId);
  });
  return row ? outboxItemOf(row) : null;
}

export type Resolution = "delivered" | "retry" | "abandon";

/** What each resolution does to an item that needed review. */
const RESOLVED: Record<Resolution, OutboxState> = {
  delivered: "ACKNOWLEDGED",
  retry: "PLANNED",
  abandon: "ABANDONED",
};

export interface Reconciliation {
  item: OutboxItem;
  actorId: string;
  resolution: Resolution;
  note: string;
  at: Date;
}

/**
 * Resolves a NEEDS_REVIEW item and writes the audit row in one transaction. `retry` is a person's explicit
 * choice to send again with the same key: the item is planned afresh with a new retry budget, and its
 * uncertainty window starts again at the next dispatch. False when the item no longer needs review.
 */
export async function reconcileItem(db: Db, r: Reconciliation): Promise<boolean> {
  const toState = RESOLVED[r.resolution];
  const result = `${r.resolution} by ${r.actorId} at ${r.at.toISOString()}: ${r.note}`;
  return db.$transaction(async (tx) => {
    const written = await tx.outboxItem.updateMany({
      where: { id: r.item.id, state: "NEEDS_REVIEW" },
      data: {
        state: toState,
        lastResult: result,
        ...(r.resolution === "retry" ? { attempts: 0, firstDispatchedAt: null, nextAttemptAt: r.at } : {}),
      },
    });
    if (written.count !== 1) return false;
    await tx.outboxReconcile.create({
      data: {
        itemId: r.item.id,
        tenantId: r.item.tenantId,
        agentId: r.item.agentId,
        actorId: r.actorId,
        resolution: r.resolution,
        note: r.note,
        fromState: "NEEDS_REVIEW",
        toState,
        lastResult: r.item.lastResult,
        at: r.at,
      },
    });
    return true;
  });
}

export async function listReconciliations(db: Db, itemId: string) {
  return db.outboxReconcile.findMany({ where: { itemId }, orderBy: { id: "asc" } });
}
