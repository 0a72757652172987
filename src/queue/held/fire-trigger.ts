import type { Logger } from "pino";
import { dueTimesBetween } from "../../policy/schedule";
import type { Store } from "../../store/client";
import { checkGate } from "../../store/gate";
import { type RecordResult, recordOccurrences } from "../../store/occurrences";
import { cadenceOf, findTrigger, type StoredTrigger } from "../../store/triggers";

export interface FireDeps {
  store: Store;
  log: Logger;
  now: () => Date;
}

/**
 * BullMQ's `every` slots are offset from the epoch by the time of registration; the occurrence key uses the
 * nearest epoch-aligned slot, so a tick and a recomputation after downtime name the same occurrence.
 */
export function slotOf(trigger: StoredTrigger, millis: number): Date {
  if (!trigger.everyMs) return new Date(Math.floor(millis / 1000) * 1000); // cron is whole seconds
  return new Date(Math.round(millis / trigger.everyMs) * trigger.everyMs);
}

/** Slots a late tick may fill as ordinary ticks; a longer gap is an outage and follows the misfire policy. */
const JITTER_SLOTS = 2;

/**
 * One scheduler tick: the occurrence due at `millis` (insert-if-absent), planned or held per the gate.
 * BullMQ re-bases a late scheduler on "now", which can step over a slot; slots since the last recorded
 * one are filled in, so no due time is silently lost.
 */
export async function fireTrigger(deps: FireDeps, triggerId: string, millis: number): Promise<RecordResult | null> {
  const trigger = await findTrigger(deps.store.db, triggerId);
  if (!trigger) return null; // deleted since the job was scheduled
  const slot = slotOf(trigger, millis);
  const gap = trigger.lastDueAt
    ? dueTimesBetween(cadenceOf(trigger), trigger.lastDueAt, new Date(slot.getTime() - 1))
    : [];
  const jitter = gap.length <= JITTER_SLOTS;
  const held = (await checkGate(deps.store.db, trigger.agentId, trigger.tenantId)).held;
  return recordOccurrences(deps.store.db, {
    trigger,
    current: jitter ? [...gap, slot] : [slot],
    missed: jitter ? [] : gap,
    held,
    now: deps.now(),
  });
}

/**
 * Time that passed while nothing ran counts too (design.md section 10): due times between the trigger's last
 * recorded occurrence and now that have no row become missed occurrences, released per the misfire policy.
 */
export async function catchUpTrigger(deps: FireDeps, trigger: StoredTrigger): Promise<RecordResult> {
  const now = deps.now();
  const after = trigger.lastDueAt ?? trigger.createdAt;
  const missed = dueTimesBetween(cadenceOf(trigger), after, now);
  const held = (await checkGate(deps.store.db, trigger.agentId, trigger.tenantId)).held;
  const result = await recordOccurrences(deps.store.db, { trigger, current: [], missed, held, now });
  if (result.recorded)
    deps.log.info({ trigger: trigger.id, missed: result.recorded, held }, "missed occurrences recorded");
  return result;
}
