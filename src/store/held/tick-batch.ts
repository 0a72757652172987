import crypto from "node:crypto";
import { occurrenceKey } from "../../policy/ids";
import { slotFor, tickDueTimes } from "../../policy/schedule";
import { OUTBOX_UNFINISHED, sqlList } from "../../policy/states";
import type { Store } from "../connection/client";
import { asDate, asDateOrNull, count, type Dialect, rows, type Step, sqlText } from "../connection/sql";
import { type Controls, controlsStep, gateOf, gateScopes } from "../control/records";
import { insertOutboxRow, type NewOutboxRow } from "../outbox/insert";
import { type Claim, plannedItem } from "../outbox/types";
import { openRecoveryRelease } from "./releases";
import { cadenceOf, type StoredTrigger } from "./triggers";

export interface Tick {
  triggerId: string;
  millis: number;
}

export interface TickBatchResult {
  planned: number;
  releaseIds: string[];
  /** Deliveries dispatched as they were planned (see `TickIntake`): the caller sends them. */
  claims: Claim[];
}

/**
 * Dispatch a fresh delivery as it is planned (SQLite): leased and marked DISPATCHED in the transaction that
 * read the gate open, so the caller sends it at once, with no claim, gate read or mark of its own. The gate
 * reading and the mark are then one atomic step. Only a delivery whose lane (agent and destination) has
 * nothing else planned or in flight is taken this way; the rest wait for the delivery loop's claim, in order.
 */
export interface TickIntake {
  leaseMs: number;
  /** At most this many (the delivery loop's room): beyond it, deliveries wait in the outbox for the claim. */
  limit: number;
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
  intake?: TickIntake,
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
const INSERT_OCCURRENCE = sqlText(
  (
    d,
  ) => `INSERT INTO "Occurrence" ("id", "triggerId", "tenantId", "agentId", "dueAt", "state", "outboxId", "createdAt", "updatedAt")
  VALUES (?, ?, ?, ?, ${d.time}, ?, ?, ${d.time}, ${d.time}) ON CONFLICT ("id") DO NOTHING`,
);
/** Lanes of these agents with a delivery planned or in flight: a fresh one there waits its turn. */
const BUSY_LANES = sqlText(
  (d) => `SELECT DISTINCT "agentId", "destination" FROM "OutboxItem"
  WHERE "agentId" IN ${d.list} AND "state" IN ${sqlList(OUTBOX_UNFINISHED)}`,
);
const ADVANCE_TRIGGER = sqlText(
  (d) => `UPDATE "Trigger" SET "lastDueAt" = ${d.time}, "updatedAt" = ${d.time}
  WHERE "id" = ? AND ("lastDueAt" IS NULL OR "lastDueAt" < ${d.time})`,
);

type TriggerReadRow = Omit<TriggerRow, "lastDueAt" | "everyMs" | "createdAt"> & {
  lastDueAt: unknown;
  everyMs: unknown;
  createdAt: unknown;
};

function* recordStep(
  d: Dialect,
  ticks: Tick[],
  now: Date,
  intake: TickIntake | undefined,
): Step<{ fresh: PlannedOccurrence[]; claims: Claim[] }> {
  const leaseAtOnce = intake !== undefined && intake.limit > 0;
  // Deciding which lanes are free must not race another process's claim (claim.ts).
  if (leaseAtOnce && d.laneLock) yield* rows(d.laneLock);
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
  const plan = planTicks(triggers, yield* controlsStep(d, gateScopes(triggers.values()), leaseAtOnce), ticks);
  const takeAtOnce = leaseAtOnce ? yield* freeLanes(d, plan.rows, intake.limit) : new Set<string>();
  const expiresAt = intake && new Date(now.getTime() + intake.leaseMs);
  const lease = expiresAt && { token: crypto.randomUUID(), expiresAt };
  const fresh: PlannedOccurrence[] = [];
  const claims: Claim[] = [];
  for (const r of plan.rows) {
    const { tenantId, agentId } = r.trigger;
    const outboxId = r.state === "PLANNED" ? r.id : null;
    const row = [r.id, r.trigger.id, tenantId, agentId, r.dueAt, r.state, outboxId, now, now] as const;
    if ((yield* count(INSERT_OCCURRENCE(d), ...row)) === 0) continue;
    fresh.push(r);
    if (r.state !== "PLANNED") continue;
    const o = outboxRowOf(r);
    const leased = lease && takeAtOnce.has(r.id) ? lease : undefined;
    // The claim is built from what was written: reading the row back (RETURNING *) cost about 12 µs of
    // CPU per delivery on SQLite, a quarter of the whole tick (bench/held.ts).
    if ((yield* insertOutboxRow(d, o, now, leased)) === 1 && leased) {
      claims.push(dispatchedClaim(o, now, leased.token, leased.expiresAt));
    }
  }
  for (const [id, dueAt] of plan.latest) yield* count(ADVANCE_TRIGGER(d), dueAt, now, id, dueAt);
  return { fresh, claims };
}

/** Up to `limit` planned rows that are alone in their lane: nothing there in the outbox, no other row of the batch. */
function* freeLanes(d: Dialect, planRows: PlannedOccurrence[], limit: number): Step<Set<string>> {
  const planned = planRows.filter((r) => r.state === "PLANNED");
  const laneOf = (agentId: string, destination: string) => `${agentId}|${destination}`;
  const agents = [...new Set(planned.map((r) => r.trigger.agentId))];
  const busy = yield* rows<{ agentId: string; destination: string }>(BUSY_LANES(d), agents);
  // Rows per lane; a lane with work already in the outbox counts as full whatever the batch holds.
  const perLane = new Map(busy.map((b) => [laneOf(b.agentId, b.destination), Number.POSITIVE_INFINITY]));
  const laneOfRow = (r: PlannedOccurrence) => laneOf(r.trigger.agentId, r.trigger.destination);
  for (const r of planned) perLane.set(laneOfRow(r), (perLane.get(laneOfRow(r)) ?? 0) + 1);
  const alone = planned.filter((r) => perLane.get(laneOfRow(r)) === 1);
  return new Set(alone.slice(0, limit).map((r) => r.id));
}

/**
 * A claim on a row this batch just inserted leased and DISPATCHED: the item as claimed (see `Claim`), from
 * the insert's columns and the schema's defaults.
 */
const dispatchedClaim = (o: NewOutboxRow, now: Date, leaseToken: string, leaseExpiresAt: Date): Claim => {
  // The lease fields are set in place: spreading them in would copy the whole item once more per delivery.
  const item = plannedItem(o, now);
  item.leaseToken = leaseToken;
  item.leaseAttemptId = leaseToken;
  item.leaseExpiresAt = leaseExpiresAt;
  return { item, leaseToken, attemptId: crypto.randomUUID() };
};
