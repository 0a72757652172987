import { triggerId } from "../../policy/ids";
import type { MisfirePolicy } from "../../policy/misfire";
import type { Cadence } from "../../policy/schedule";
import type { Db } from "../connection/client";

export interface TriggerSpec {
  tenantId: string;
  agentId: string;
  key: string;
  everyMs: number | null;
  /** Where an `every` trigger's slots fall within the interval (see `Cadence`); default 0, the epoch's. */
  anchorOffsetMs?: number;
  cron: string | null;
  tz: string | null;
  payload: unknown;
  destination: string;
  misfire: MisfirePolicy;
  contract: string;
}

export interface StoredTrigger extends TriggerSpec {
  id: string;
  anchorOffsetMs: number;
  lastDueAt: Date | null;
  createdAt: Date;
}

type Row = Omit<StoredTrigger, "payload" | "misfire"> & { payload: string; misfire: string };
const toStored = (row: Row): StoredTrigger => ({
  id: row.id,
  tenantId: row.tenantId,
  agentId: row.agentId,
  key: row.key,
  everyMs: row.everyMs,
  anchorOffsetMs: row.anchorOffsetMs,
  cron: row.cron,
  tz: row.tz,
  payload: JSON.parse(row.payload) as unknown,
  destination: row.destination,
  misfire: row.misfire as MisfirePolicy,
  contract: row.contract,
  lastDueAt: row.lastDueAt,
  createdAt: row.createdAt,
});

/** One row mapper for every reader of triggers (the paged list in pages.ts too). */
export { toStored as toStoredTrigger };

export const cadenceOf = (t: Pick<TriggerSpec, "everyMs" | "anchorOffsetMs" | "cron" | "tz">): Cadence =>
  t.everyMs
    ? { kind: "every", everyMs: t.everyMs, offsetMs: t.anchorOffsetMs }
    : { kind: "cron", pattern: t.cron!, tz: t.tz ?? undefined };

/**
 * Registering a key again updates the trigger. Its recorded occurrences and `lastDueAt` stay, so a changed
 * cadence never re-fires a due time that was already recorded. `createdAt` (the lower bound of the first
 * due time) comes from the caller's clock.
 */
export async function upsertTrigger(db: Db, spec: TriggerSpec, now: Date): Promise<StoredTrigger> {
  const id = triggerId(spec.agentId, spec.key);
  const fields = {
    everyMs: spec.everyMs,
    anchorOffsetMs: spec.anchorOffsetMs ?? 0,
    cron: spec.cron,
    tz: spec.tz,
    payload: JSON.stringify(spec.payload ?? null),
    destination: spec.destination,
    misfire: spec.misfire,
    contract: spec.contract,
  };
  const row = await db.trigger.upsert({
    where: { id },
    create: { id, tenantId: spec.tenantId, agentId: spec.agentId, key: spec.key, createdAt: now, ...fields },
    update: fields,
  });
  return toStored(row);
}

export async function listTriggers(db: Db, agentId: string): Promise<StoredTrigger[]> {
  return (await db.trigger.findMany({ where: { agentId }, orderBy: { key: "asc" } })).map(toStored);
}

export async function countTriggers(db: Db, agentId: string): Promise<number> {
  return db.trigger.count({ where: { agentId } });
}

export async function allTriggers(db: Db): Promise<StoredTrigger[]> {
  return (await db.trigger.findMany({ orderBy: { id: "asc" } })).map(toStored);
}

export async function findTrigger(db: Db, id: string): Promise<StoredTrigger | null> {
  const row = await db.trigger.findUnique({ where: { id } });
  return row ? toStored(row) : null;
}

/**
 * Removes the trigger. Its occurrences that were still held are recorded as SKIPPED: nobody is left to
 * deliver them to, and they stay countable rather than vanishing.
 */
export async function deleteTrigger(db: Db, id: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const removed = await tx.trigger.deleteMany({ where: { id } });
    if (removed.count === 0) return false;
    await tx.occurrence.updateMany({ where: { triggerId: id, state: "HELD" }, data: { state: "SKIPPED" } });
    return true;
  });
}
