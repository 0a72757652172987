import { occurrenceKey } from "../policy/misfire";
import type { Db, Tx } from "./client";
import { planDelivery } from "./outbox";
import { openRelease } from "./releases";
import type { StoredTrigger } from "./triggers";

export interface RecordResult {
  /** Occurrences new to the database (a duplicate tick records nothing). */
  recorded: number;
  planned: number;
  held: number;
  /** A release opened for occurrences that were missed while nothing ran and the agent was not paused. */
  releaseId: string | null;
}

export interface DueOccurrences {
  trigger: StoredTrigger;
  /** Due times of the tick being processed (and of a tick or two BullMQ's timing jitter skipped): planned at
   * once unless held. Empty for a pure catch-up. */
  current: Date[];
  /** Due times that passed with no tick (process down, Redis emptied): they follow the misfire policy. */
  missed: Date[];
  /** The gate's answer, read just before. */
  held: boolean;
  now: Date;
}

/**
 * Writes occurrences before anything is delivered (design.md section 10). Each is insert-if-absent by its
 * key, so a retried or duplicated job does nothing twice. Held: the row says HELD. Running: the current
 * one is planned in the outbox in the same transaction; missed ones are HELD and a release is opened so the
 * trigger's misfire policy decides what they become.
 */
export async function recordOccurrences(db: Db, due: DueOccurrences): Promise<RecordResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction((tx) => recordInTx(tx, due));
    } catch (error) {
      // Two ticks inserting the same key at once: the loser retries and finds the row.
      if ((error as { code?: string }).code !== "P2002" || attempt >= 3) throw error;
    }
  }
}

async function recordInTx(tx: Tx, due: DueOccurrences): Promise<RecordResult> {
  const { trigger, now } = due;
  const result: RecordResult = { recorded: 0, planned: 0, held: 0, releaseId: null };
  const all = [...due.missed, ...due.current];
  if (all.length === 0) return result;
  const ids = all.map((d) => occurrenceKey(trigger.agentId, trigger.key, d));
  const existing = new Set(
    (await tx.occurrence.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id),
  );
  const base = { triggerId: trigger.id, tenantId: trigger.tenantId, agentId: trigger.agentId };
  const missedRows = due.missed
    .map((dueAt) => ({ id: occurrenceKey(trigger.agentId, trigger.key, dueAt), dueAt }))
    .filter((o) => !existing.has(o.id));
  if (missedRows.length) {
    await tx.occurrence.createMany({ data: missedRows.map((o) => ({ ...o, ...base, state: "HELD", createdAt: now })) });
    result.held += missedRows.length;
    if (!due.held) {
      result.releaseId = await openRelease(tx, {
        tenantId: trigger.tenantId,
        agentId: trigger.agentId,
        requestedBy: "recovery",
        heldSince: trigger.lastDueAt,
        now,
      });
    }
  }
  const currentRows = due.current
    .map((dueAt) => ({ id: occurrenceKey(trigger.agentId, trigger.key, dueAt), dueAt }))
    .filter((o) => !existing.has(o.id));
  for (const { id, dueAt } of currentRows) {
    await tx.occurrence.create({
      data: {
        id,
        dueAt,
        ...base,
        state: due.held ? "HELD" : "PLANNED",
        outboxId: due.held ? null : id,
        createdAt: now,
      },
    });
    if (due.held) {
      result.held++;
      continue;
    }
    await planDelivery(tx, {
      id,
      kind: "trigger",
      tenantId: trigger.tenantId,
      agentId: trigger.agentId,
      destination: trigger.destination,
      contract: trigger.contract,
      payload: { agent: trigger.agentId, trigger: trigger.key, dueAt: dueAt.toISOString(), payload: trigger.payload },
    });
    result.planned++;
  }
  result.recorded = missedRows.length + currentRows.length;
  const latest = all.reduce((a, b) => (a.getTime() > b.getTime() ? a : b));
  if (!trigger.lastDueAt || latest.getTime() > trigger.lastDueAt.getTime()) {
    await tx.trigger.updateMany({
      where: { id: trigger.id, OR: [{ lastDueAt: null }, { lastDueAt: { lt: latest } }] },
      data: { lastDueAt: latest },
    });
  }
  return result;
}

/** Held occurrences per trigger key of one agent (the resume preflight). */
export async function heldOccurrencesByTrigger(db: Db, agentId: string): Promise<Record<string, number>> {
  const rows = await db.occurrence.groupBy({ by: ["triggerId"], where: { agentId, state: "HELD" }, _count: true });
  const out: Record<string, number> = {};
  for (const row of rows) out[row.triggerId.slice(agentId.length + 1)] = row._count;
  return out;
}

export async function occurrencesOf(db: Db, triggerIdValue: string) {
  return db.occurrence.findMany({ where: { triggerId: triggerIdValue }, orderBy: { dueAt: "asc" } });
}
