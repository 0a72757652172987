import { OUTBOX_DELIVERED, OUTBOX_GIVEN_UP } from "../../policy/states";
import type { Db } from "../connection/client";
import { ESCALATION_BUTTONS, liveEscalations, pruneResolvedEscalations } from "../escalations/prune";

/** How many rows one prune removed, per kind (logged after every prune). */
export interface PruneCounts {
  outboxItems: number;
  occurrences: number;
  inboxEvents: number;
  chatButtons: number;
  controlAudit: number;
  reconciliations: number;
  /** Resolved escalations, with their ledger rows and cards. */
  escalations: number;
}

export interface PruneCutoffs {
  /** Delivered work (acknowledged or observed items, their occurrences, done events, chat buttons) older than this goes. */
  deliveredBefore: Date;
  /** The audit tables, and failed or abandoned items, older than this go. */
  auditBefore: Date;
  /** Rows per statement, so a large backlog never holds one long transaction. Default 500. */
  batch?: number;
}

const RUN_BUTTONS = ["run.approve", "run.deny"];

/**
 * Removes finished work past its retention window (design.md section 11). Only finished states are ever
 * named: an item that is planned, in flight or in NEEDS_REVIEW, a held or released-but-unsent occurrence,
 * a held or waiting event and the buttons of a run still waiting are never touched.
 */
export async function pruneFinished(db: Db, cutoffs: PruneCutoffs): Promise<PruneCounts> {
  const batch = cutoffs.batch ?? 500;
  const counts: PruneCounts = {
    outboxItems: 0,
    occurrences: 0,
    inboxEvents: 0,
    chatButtons: 0,
    controlAudit: 0,
    reconciliations: 0,
    escalations: 0,
  };
  for (const [states, before] of [
    [OUTBOX_DELIVERED, cutoffs.deliveredBefore],
    [OUTBOX_GIVEN_UP, cutoffs.auditBefore],
  ] as const) {
    for (;;) {
      const done = await pruneOutboxBatch(db, [...states], before, batch);
      counts.outboxItems += done.items;
      counts.occurrences += done.occurrences;
      if (done.items < batch) break;
    }
  }
  const skipped = await db.occurrence.deleteMany({
    where: { state: "SKIPPED", updatedAt: { lt: cutoffs.deliveredBefore } },
  });
  counts.occurrences += skipped.count;
  const events = await db.inboxEvent.deleteMany({
    where: { state: "DONE", receivedAt: { lt: cutoffs.deliveredBefore } },
  });
  counts.inboxEvents = events.count;
  counts.chatButtons = await pruneChatButtons(db, cutoffs.deliveredBefore, batch);
  counts.controlAudit = (await db.controlAudit.deleteMany({ where: { at: { lt: cutoffs.auditBefore } } })).count;
  counts.reconciliations = (await db.outboxReconcile.deleteMany({ where: { at: { lt: cutoffs.auditBefore } } })).count;
  counts.escalations = await pruneResolvedEscalations(db, cutoffs.auditBefore, batch);
  return counts;
}

/** One batch of finished items with the occurrences they carried, in one transaction. */
async function pruneOutboxBatch(db: Db, states: string[], before: Date, batch: number) {
  const rows = await db.outboxItem.findMany({
    where: { state: { in: states }, updatedAt: { lt: before } },
    select: { id: true },
    take: batch,
  });
  if (rows.length === 0) return { items: 0, occurrences: 0 };
  const ids = rows.map((r) => r.id);
  return db.$transaction(async (tx) => {
    // The state is asked again: an item reconciled for a retry meanwhile is pending again and stays.
    const items = await tx.outboxItem.deleteMany({ where: { id: { in: ids }, state: { in: states } } });
    const occurrences = await tx.occurrence.deleteMany({
      where: { outboxId: { in: ids }, state: { in: ["PLANNED", "RELEASED"] } },
    });
    return { items: items.count, occurrences: occurrences.count };
  });
}

/**
 * Buttons past the window, except those of a run still waiting for its decision (its card is still live) and
 * those of an escalation not resolved yet (its ping is still live).
 */
async function pruneChatButtons(db: Db, before: Date, batch: number): Promise<number> {
  let removed = 0;
  let after = "";
  for (;;) {
    const rows = await db.chatButton.findMany({
      where: { createdAt: { lt: before }, id: { gt: after } },
      select: { id: true, action: true, payload: true },
      orderBy: { id: "asc" },
      take: batch,
    });
    if (rows.length === 0) return removed;
    after = rows[rows.length - 1]!.id;
    const runOf = (payload: string) => (JSON.parse(payload) as { runId?: unknown }).runId;
    const runIds = rows.filter((r) => RUN_BUTTONS.includes(r.action)).map((r) => runOf(r.payload));
    const waiting = await db.run.findMany({
      where: { id: { in: runIds.filter((id): id is string => typeof id === "string") }, state: "waiting" },
      select: { id: true },
    });
    const live = new Set(waiting.map((r) => r.id));
    const escalationOf = (payload: string) => String((JSON.parse(payload) as { escalationId?: unknown }).escalationId);
    const pings = rows.filter((r) => ESCALATION_BUTTONS.includes(r.action));
    const livePings = await liveEscalations(
      db,
      pings.map((r) => escalationOf(r.payload)),
    );
    const keep = (r: (typeof rows)[number]) =>
      (RUN_BUTTONS.includes(r.action) && live.has(String(runOf(r.payload)))) ||
      (ESCALATION_BUTTONS.includes(r.action) && livePings.has(escalationOf(r.payload)));
    const ids = rows.filter((r) => !keep(r)).map((r) => r.id);
    removed += (await db.chatButton.deleteMany({ where: { id: { in: ids } } })).count;
    if (rows.length < batch) return removed;
  }
}
