import { gateVerdict } from "../policy/gate";
import { occurrenceKey } from "../policy/misfire";
import { slotFor, tickDueTimes } from "../policy/schedule";
import { insertOccurrenceRows, insertOutboxRows } from "./bulk-insert";
import type { Db } from "./client";
import { readControlScopes } from "./control-scopes";
import { agentScope, tenantScope } from "./directory";
import { openRelease } from "./releases";
import { cadenceOf } from "./triggers";

export interface Tick {
  triggerId: string;
  millis: number;
}

export interface TickBatchResult {
  planned: number;
  releaseIds: string[];
}

/**
 * Records many scheduler ticks in one transaction (a group commit): the same rules as one tick at a time
 * (insert-if-absent occurrence keys, the gate read per agent, planned or HELD), with a handful of queries
 * per batch instead of a handful per tick. Ticks of deleted triggers are dropped.
 */
export async function recordTicks(db: Db, ticks: Tick[], now: Date): Promise<TickBatchResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordOnce(db, ticks, now);
    } catch (error) {
      // Another process recorded one of these keys at the same moment: the retry finds the row.
      if ((error as { code?: string }).code !== "P2002" || attempt >= 3) throw error;
    }
  }
}

async function recordOnce(db: Db, ticks: Tick[], now: Date): Promise<TickBatchResult> {
  const triggerIds = [...new Set(ticks.map((t) => t.triggerId))];
  const triggers = new Map((await db.trigger.findMany({ where: { id: { in: triggerIds } } })).map((t) => [t.id, t]));
  const scopes = [...triggers.values()].flatMap((t) => [agentScope(t.agentId), tenantScope(t.tenantId)]);
  const controls = await readControlScopes(db, scopes);
  return db.$transaction(async (tx) => {
    const rows: Array<{ id: string; triggerId: string; dueAt: Date; state: string; missed: boolean }> = [];
    const latest = new Map<string, Date>();
    for (const tick of ticks) {
      const t = triggers.get(tick.triggerId);
      if (!t) continue;
      const held = gateVerdict(controls.get(agentScope(t.agentId)), controls.get(tenantScope(t.tenantId))).held;
      const cadence = cadenceOf(t);
      const due = tickDueTimes(cadence, latest.get(t.id) ?? t.lastDueAt, slotFor(cadence, tick.millis));
      for (const [list, missed] of [
        [due.missed, true],
        [due.current, false],
      ] as const) {
        for (const dueAt of list) {
          const state = held || missed ? "HELD" : "PLANNED";
          rows.push({ id: occurrenceKey(t.agentId, t.key, dueAt), triggerId: t.id, dueAt, state, missed });
          if (dueAt > (latest.get(t.id) ?? t.lastDueAt ?? new Date(0))) latest.set(t.id, dueAt);
        }
      }
    }
    const unique = [...new Map(rows.map((r) => [r.id, r])).values()];
    const inserted = await insertOccurrenceRows(
      tx,
      unique.map((r) => {
        const t = triggers.get(r.triggerId)!;
        const outboxId = r.state === "PLANNED" ? r.id : null;
        return { ...r, tenantId: t.tenantId, agentId: t.agentId, outboxId, at: now };
      }),
    );
    // Only rows this batch inserted: a key that existed (a duplicate tick) is already someone's.
    const fresh = unique.filter((r) => inserted.has(r.id));
    const planned = fresh.filter((r) => r.state === "PLANNED");
    await insertOutboxRows(
      tx,
      planned.map((r) => {
        const t = triggers.get(r.triggerId)!;
        const payload = {
          agent: t.agentId,
          trigger: t.key,
          dueAt: r.dueAt.toISOString(),
          payload: JSON.parse(t.payload),
        };
        const { tenantId, agentId, destination, contract } = t;
        return {
          id: r.id,
          kind: "trigger",
          tenantId,
          agentId,
          destination,
          contract,
          payload: JSON.stringify(payload),
          at: now,
        };
      }),
    );
    // Missed time of a running agent follows the misfire policy through a release of its own.
    const releaseIds: string[] = [];
    for (const triggerId of new Set(fresh.filter((r) => r.missed).map((r) => r.triggerId))) {
      const t = triggers.get(triggerId)!;
      if (gateVerdict(controls.get(agentScope(t.agentId)), controls.get(tenantScope(t.tenantId))).held) continue;
      const args = { tenantId: t.tenantId, agentId: t.agentId, requestedBy: "recovery", heldSince: t.lastDueAt, now };
      releaseIds.push(await openRelease(tx, args));
    }
    const byDue = new Map<number, string[]>();
    for (const [id, dueAt] of latest) byDue.set(dueAt.getTime(), [...(byDue.get(dueAt.getTime()) ?? []), id]);
    for (const [millis, ids] of byDue) {
      const dueAt = new Date(millis);
      await tx.trigger.updateMany({
        where: { id: { in: ids }, OR: [{ lastDueAt: null }, { lastDueAt: { lt: dueAt } }] },
        data: { lastDueAt: dueAt },
      });
    }
    return { planned: planned.length, releaseIds };
  });
}
