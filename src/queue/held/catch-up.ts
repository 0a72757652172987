import type { Logger } from "pino";
import { dueTimesBetween } from "../../policy/schedule";
import type { Store } from "../../store/client";
import { checkGate } from "../../store/control/gate";
import { type MissedResult, recordMissed } from "../../store/occurrences";
import { cadenceOf, type StoredTrigger } from "../../store/triggers";

export interface FireDeps {
  store: Store;
  log: Logger;
  now: () => Date;
}

/**
 * Time that passed while nothing ran counts too (design.md section 10): due times between the trigger's last
 * recorded occurrence and now that have no row become missed occurrences, released per the misfire policy.
 */
export async function catchUpTrigger(deps: FireDeps, trigger: StoredTrigger): Promise<MissedResult> {
  const now = deps.now();
  const after = trigger.lastDueAt ?? trigger.createdAt;
  const missed = dueTimesBetween(cadenceOf(trigger), after, now);
  const held = (await checkGate(deps.store, trigger.agentId, trigger.tenantId)).held;
  const result = await recordMissed(deps.store.db, { trigger, missed, held, now });
  if (result.recorded)
    deps.log.info({ trigger: trigger.id, missed: result.recorded, held }, "missed occurrences recorded");
  return result;
}
