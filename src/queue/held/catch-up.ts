import type { Logger } from "pino";
import type { MetricsSink } from "../../policy/metrics-sink";
import { dueTimesBetween } from "../../policy/schedule";
import type { Store } from "../../store/connection/client";
import { checkGate } from "../../store/control/gate";
import { recordMissed } from "../../store/held/occurrences";
import { openRecoveryRelease } from "../../store/held/releases";
import { cadenceOf, type StoredTrigger } from "../../store/held/triggers";

export interface FireDeps {
  store: Store;
  log: Logger;
  now: () => Date;
  /** Counts the recovery releases opened here. */
  metrics?: MetricsSink;
}

/**
 * Time that passed while nothing ran counts too (design.md section 10): due times between the trigger's last
 * recorded occurrence and now that have no row become missed occurrences, released per the misfire policy.
 */
export interface MissedResult {
  recorded: number;
  /** A release opened because the agent runs and no release of it or its tenant is open to take the rows. */
  releaseId: string | null;
}

export async function catchUpTrigger(deps: FireDeps, trigger: StoredTrigger): Promise<MissedResult> {
  const now = deps.now();
  const after = trigger.lastDueAt ?? trigger.createdAt;
  const missed = dueTimesBetween(cadenceOf(trigger), after, now);
  const held = (await checkGate(deps.store, trigger.agentId, trigger.tenantId)).held;
  const { recorded } = await recordMissed(deps.store, { trigger, missed, held, now });
  if (recorded === 0) return { recorded, releaseId: null };
  deps.log.info({ trigger: trigger.id, missed: recorded, held }, "missed occurrences recorded");
  const { agentId, tenantId } = trigger;
  const releaseId = held ? null : await openRecoveryRelease(deps.store, agentId, tenantId, now, trigger.lastDueAt);
  if (releaseId) deps.metrics?.releaseStarted();
  return { recorded, releaseId };
}
