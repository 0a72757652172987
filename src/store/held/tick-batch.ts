import { occurrenceKey } from "../../policy/ids";
import { slotFor, tickDueTimes } from "../../policy/schedule";
import type { Store } from "../connection/client";
import {
  asDate,
  asDateOrNull,
  count,
  type Dialect,
  rows,
  rowsParam,
  rowTime,
  type Step,
  sqlText,
} from "../connection/sql";
import { type Controls, controlsStep, gateOf, gateScopes } from "../control/records";
import type { NewOutboxRow } from "../outbox/insert";
import { leaseAtPlan, leasesAny, lockLanes, type PlanIntake } from "../outbox/lease-at-plan";
import type { Claim } from "../outbox/types";
import { ADVANCE_TRIGGERS, INSERT_OCCURRENCES } from "./occurrences";
import { openRecoveryRelease } from "./releases";
import { cadenceOf, type StoredTrigger } from "./triggers";

export interface Tick {
  triggerId: string;
  millis: number;
}

export interface TickBatchResult {
  planned: number;
  releaseIds: string[];
  /** Deliveries dispatched as they were planned (store/outbox/lease-at-plan.ts): the caller sends them. */
  claims: Claim[];
}

/** A trigger as the tick batch reads it: the stored trigger, with its payload still JSON text. */
type TriggerRow = Omit<StoredTrigger, "payload" | "misfire"> & { payload: string };

interface PlannedOccurrence {
  id: string;
  trigger: TriggerRow;
  dueAt: Date;
  state: "HELD" | "PLANNED";
  missed: boolean;
  /** The gate's reading for the trigger's agent: held (paused agent or tenant) or open. */
  gateHeld: boolean;
}

/** What a batch of ticks writes: occurrence rows, and each trigger's newest due time. */
interface TickPlan {
  rows: PlannedOccurrence[];
  latest: Map<string, Date>;
}

/**
 * The rules for a batch (the same as one tick at a time): insert-if-absent occurrence keys, the gate read
 * per agent, PLANNED when the gate is open and HELD otherwise; slots a late tick skipped are HELD as missed.
 */
function planTicks(triggers: Map<string, TriggerRow>, controls: Controls, ticks: Tick[]): TickPlan {
  const held = (t: TriggerRow) => gateOf(controls, t.agentId, t.tenantId).held;
  const rows = new Map<string, PlannedOccurrence>();
  const latest = new Map<string, Date>();
  for (const tick of ticks) {
    const t = triggers.get(tick.triggerId);
    if (!t) continue;
    const cadence = cadenceOf(t);
    // A trigger's first tick also fills the slots since its registration (the scheduler may have been set
    // a moment after the API announced the first one): the announced slot is never skipped.
    const since = latest.get(t.id) ?? t.lastDueAt ?? t.createdAt;
    const due = tickDueTimes(cadence, since, slotFor(cadence, tick.millis));
    const gateHeld = held(t);
    for (const [list, missed] of [
      [due.missed, true],
      [due.current, false],
    ] as const) {
      for (const dueAt of list) {
        const id = occurrenceKey(t.agentId, t.key, dueAt);
        if (!rows.has(id))
          rows.set(id, { id, trigger: t, dueAt, state: gateHeld || missed ? "HELD" : "PLANNED", missed, gateHeld });
        if (dueAt > (latest.get(t.id) ?? t.lastDueAt ?? new Date(0))) latest.set(t.id, dueAt);
      }
    }
  }
  return { rows: [...rows.values()], latest };
}

/**
 * The delivery of an occurrence: `{ agent, trigger, dueAt, payload }` as JSON. The trigger's payload is
 * already JSON text (written by JSON.stringify), so it goes in as it is rather than parsed and written again.
 */
const outboxRowOf = (r: PlannedOccurrence): NewOutboxRow => {
  const t = r.trigger;
  const payload = `{"agent":${JSON.stringify(t.agentId)},"trigger":${JSON.stringify(t.key)},"dueAt":"${r.dueAt.toISOString()}","payload":${t.payload}}`;
  const { tenantId, agentId, destination, contract } = t;
  return { id: r.id, kind: "trigger", tenantId, agentId, destination, contract, payload };
};

/**
 * Records many scheduler ticks in one transaction (a group commit), with a handful of statements per batch
 * instead of a handful per tick, by the same rule on every database. The gate is read in the transaction
 * that writes. Ticks of deleted triggers are dropped. Missed time of a running agent follows the misfire
 * policy through a release of its own, opened right after the commit (a crash in between leaves HELD rows
 * with an open gate, which the orphaned-hold recovery releases).
 */
export async function recordTicks(
  store: Store,
  ticks: Tick[],
  now: Date,
  intake?: PlanIntake,
): Promise<TickBatchResult> {
  const { fresh, claims } = await store.sql.write((d) => recordStep(d, ticks, now, intake));
  const recover = new Map(fresh.filter((r) => r.missed && !r.gateHeld).map((r) => [r.trigger.id, r.trigger]));
  const releaseIds: string[] = [];
  for (const t of recover.values()) {
    const releaseId = await openRecoveryRelease(store, t.agentId, t.tenantId, now, t.lastDueAt);
    if (releaseId) releaseIds.push(releaseId);
  }
  return { planned: fresh.filter((r) => r.state === "PLANNED").length, releaseIds, claims };
}

/** The columns of `TriggerRow`: the batch reads nothing else. */
const TRIGGERS_IN = sqlText(
  (
    d,
  ) => `SELECT "id", "tenantId", "agentId", "key", "everyMs", "anchorOffsetMs", "cron", "tz", "payload", "destination", "contract", "lastDueAt", "createdAt"
  FROM "Trigger" WHERE "id" IN ${d.list}`,
);

type TriggerReadRow = Omit<TriggerRow, "lastDueAt" | "everyMs" | "createdAt"> & {
  lastDueAt: unknown;
  everyMs: unknown;
  createdAt: unknown;
};

/**
 * The batch's one transaction: the triggers and their gate read, the occurrences (insert-if-absent), their
 * deliveries (through the intake, which leases those it may), and each trigger's newest due time.
 */
function* recordStep(
  d: Dialect,
  ticks: Tick[],
  now: Date,
  intake: PlanIntake | undefined,
): Step<{ fresh: PlannedOccurrence[]; claims: Claim[] }> {
  const found = yield* rows<TriggerReadRow>(TRIGGERS_IN(d), [...new Set(ticks.map((t) => t.triggerId))]);
  const triggers = new Map<string, TriggerRow>(
    found.map((t) => [
      t.id,
      {
        ...t,
        everyMs: t.everyMs === null ? null : Number(t.everyMs),
        lastDueAt: asDateOrNull(t.lastDueAt),
        createdAt: asDate(t.createdAt),
      },
    ]),
  );
  const scopes = gateScopes(triggers.values());
  let plan = planTicks(triggers, yield* controlsStep(d, scopes), ticks);
  // Only a batch with a delivery to lease takes the lane lock. A batch of paused agents' ticks (all HELD) takes
  // none: with every tick batch of every process queued on the one lock during a long pause, the lock was held
  // 2-4 s at a time by transactions waiting on a busy event loop, and the API's calls waited for connections.
  const leasing = leasesAny(intake) && plan.rows.some((r) => r.state === "PLANNED");
  if (leasing) {
    yield* lockLanes(d);
    // The verdict the batch acts on is read again under the lock, locked (see Dialect.forShare).
    if (d.forShare) plan = planTicks(triggers, yield* controlsStep(d, scopes, true), ticks);
  }
  const deliveries = new Map(plan.rows.filter((r) => r.state === "PLANNED").map((r) => [r.id, outboxRowOf(r)]));
  const leases = yield* leaseAtPlan(d, [...deliveries.values()], now, leasing ? intake : undefined);
  const occurrences = plan.rows.map((r) => {
    const { tenantId, agentId } = r.trigger;
    const outboxId = deliveries.has(r.id) ? r.id : null;
    return [r.id, r.trigger.id, tenantId, agentId, rowTime(r.dueAt), r.state, outboxId];
  });
  const written = occurrences.length
    ? new Set((yield* rows<{ id: string }>(INSERT_OCCURRENCES(d), now, now, rowsParam(occurrences))).map((w) => w.id))
    : new Set<string>();
  const fresh = plan.rows.filter((r) => written.has(r.id));
  const freshDeliveries = fresh.flatMap((r) => deliveries.get(r.id) ?? []);
  if (freshDeliveries.length) yield* leases.insert(d, freshDeliveries, now);
  const latest = [...plan.latest].map(([id, dueAt]) => [id, rowTime(dueAt)]);
  if (latest.length) yield* count(ADVANCE_TRIGGERS(d), now, rowsParam(latest));
  return { fresh, claims: leases.claims };
}
