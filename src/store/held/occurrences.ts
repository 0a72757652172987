import { occurrenceKey } from "../../policy/ids";
import type { Db, Tx } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";
import type { StoredTrigger } from "./triggers";

export interface MissedRecord {
  /** Occurrences new to the database (due times already recorded are left alone). */
  recorded: number;
}

export interface MissedOccurrences {
  trigger: StoredTrigger;
  /** Due times that passed with no tick (process down, Redis emptied). */
  missed: Date[];
  /** The gate's answer, read just before: paused agents keep the rows HELD for their resume. */
  held: boolean;
  now: Date;
}

/**
 * Records missed due times as HELD occurrences, insert-if-absent by key (design.md section 10). The caller
 * then has a running agent's rows released (queue/held/catch-up.ts), so a night's outage becomes one
 * coalesced delivery (or all, or none, per the trigger), never a silent drop; a crash in between leaves held
 * rows with an open gate, which the orphaned-hold recovery releases. Scheduler ticks take the batched path.
 */
export async function recordMissed(db: Db, due: MissedOccurrences): Promise<MissedRecord> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction((tx) => recordInTx(tx, due));
    } catch (error) {
      // A tick inserted one of these keys at the same moment: the retry finds the row.
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
}

async function recordInTx(tx: Tx, due: MissedOccurrences): Promise<MissedRecord> {
  const { trigger, now } = due;
  if (due.missed.length === 0) return { recorded: 0 };
  const rows = due.missed.map((dueAt) => ({ id: occurrenceKey(trigger.agentId, trigger.key, dueAt), dueAt }));
  const existing = new Set(
    (await tx.occurrence.findMany({ where: { id: { in: rows.map((r) => r.id) } }, select: { id: true } })).map(
      (r) => r.id,
    ),
  );
  const fresh = rows.filter((r) => !existing.has(r.id));
  if (fresh.length === 0) return { recorded: 0 };
  const base = { triggerId: trigger.id, tenantId: trigger.tenantId, agentId: trigger.agentId };
  await tx.occurrence.createMany({ data: fresh.map((o) => ({ ...o, ...base, state: "HELD", createdAt: now })) });
  const latest = fresh[fresh.length - 1]!.dueAt;
  await tx.trigger.updateMany({
    where: { id: trigger.id, OR: [{ lastDueAt: null }, { lastDueAt: { lt: latest } }] },
    data: { lastDueAt: latest },
  });
  return { recorded: fresh.length };
}
