import type { Db } from "../connection/client";

export const ESCALATION_BUTTONS = ["escalation.ack", "escalation.takeover"];

/**
 * Resolved escalations past the audit window go with their ledger and cards, a batch per transaction; an
 * open or acknowledged one never does. Item rows with no active escalation go too (a later wait of the same
 * item makes its row again).
 */
export async function pruneResolvedEscalations(db: Db, before: Date, batch: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await db.escalation.findMany({
      where: { state: "resolved", resolvedAt: { lt: before } },
      select: { id: true },
      take: batch,
    });
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    removed += await db.$transaction(async (tx) => {
      await tx.escalationStep.deleteMany({ where: { escalationId: { in: ids } } });
      await tx.escalationCard.deleteMany({ where: { escalationId: { in: ids } } });
      return (await tx.escalation.deleteMany({ where: { id: { in: ids }, state: "resolved" } })).count;
    });
    if (rows.length < batch) break;
  }
  await db.escalationItem.deleteMany({ where: { activeId: null, updatedAt: { lt: before } } });
  return removed;
}

/** Of these escalation ids, those still open or acknowledged: their buttons are live. */
export async function liveEscalations(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.escalation.findMany({
    where: { id: { in: [...ids] }, state: { in: ["open", "acknowledged"] } },
    select: { id: true },
  });
  return new Set(rows.map((r) => r.id));
}
