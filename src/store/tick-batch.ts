import crypto from "node:crypto";
import type { ControlRecord } from "../policy/control";
import { gateVerdict } from "../policy/gate";
import { occurrenceKey } from "../policy/misfire";
import { slotFor, tickDueTimes } from "../policy/schedule";
import { insertOccurrenceRows, insertOutboxRows, type OutboxRow } from "./bulk-insert";
import type { Store } from "./client";
import { readControlScopes } from "./control-scopes";
import { agentScope, tenantScope } from "./directory";
import { type Claim, plannedItem } from "./outbox";
import { controlsIn } from "./outbox-sqlite";
import { openRelease } from "./releases";
import { fromSqliteTime, type Sql, type SqliteDirect, sqliteTime } from "./sqlite-direct";
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
type TriggerRow = Omit<StoredTrigger, "payload" | "misfire" | "createdAt"> & { payload: string };

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
function planTicks(triggers: Map<string, TriggerRow>, controls: Map<string, ControlRecord>, ticks: Tick[]): TickPlan {
  const held = (t: TriggerRow) =>
    gateVerdict(controls.get(agentScope(t.agentId)), controls.get(tenantScope(t.tenantId))).held;
  const rows = new Map<string, PlannedOccurrence>();
  const latest = new Map<string, Date>();
  for (const tick of ticks) {
    const t = triggers.get(tick.triggerId);
    if (!t) continue;
    const cadence = cadenceOf(t);
    const due = tickDueTimes(cadence, latest.get(t.id) ?? t.lastDueAt, slotFor(cadence, tick.millis));
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
const outboxRowOf = (r: PlannedOccurrence, at: Date, dueAtIso = r.dueAt.toISOString()): OutboxRow => {
  const t = r.trigger;
  const payload = `{"agent":${JSON.stringify(t.agentId)},"trigger":${JSON.stringify(t.key)},"dueAt":"${dueAtIso}","payload":${t.payload}}`;
  const { tenantId, agentId, destination, contract } = t;
  return { id: r.id, kind: "trigger", tenantId, agentId, destination, contract, payload, at };
};

/** ISO text of the due times of a batch, each written once: a batch's ticks mostly share one slot. */
function dueTimeTexts() {
  const iso = new Map<number, string>();
  const isoOf = (at: Date) => {
    const known = iso.get(at.getTime());
    if (known !== undefined) return known;
    const text = at.toISOString();
    iso.set(at.getTime(), text);
    return text;
  };
  return { iso: isoOf, sqlite: (at: Date) => sqliteTime(at, isoOf(at)) };
}

/**
 * Records many scheduler ticks in one transaction (a group commit), with a handful of statements per batch
 * instead of a handful per tick. Ticks of deleted triggers are dropped. Missed time of a running agent
 * follows the misfire policy through a release of its own, opened right after the commit (a crash in
 * between leaves HELD rows with an open gate, which the orphaned-hold recovery releases).
 */
export async function recordTicks(
  store: Store,
  ticks: Tick[],
  now: Date,
  intake?: TickIntake,
): Promise<TickBatchResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { fresh, claims } = store.sqlite
        ? await recordSqlite(store.sqlite, ticks, now, intake)
        : { fresh: await recordPrisma(store, ticks, now), claims: [] };
      const recover = new Map(fresh.filter((r) => r.missed && !r.gateHeld).map((r) => [r.trigger.id, r.trigger]));
      const releaseIds: string[] = [];
      for (const t of recover.values()) {
        const request = {
          tenantId: t.tenantId,
          agentId: t.agentId,
          requestedBy: "recovery",
          heldSince: t.lastDueAt,
          now,
        };
        releaseIds.push(await store.db.$transaction((tx) => openRelease(tx, request)));
      }
      return { planned: fresh.filter((r) => r.state === "PLANNED").length, releaseIds, claims };
    } catch (error) {
      // Another process recorded one of these keys at the same moment: the retry finds the row.
      if ((error as { code?: string }).code !== "P2002" || attempt >= 3) throw error;
    }
  }
}

async function recordPrisma(store: Store, ticks: Tick[], now: Date): Promise<PlannedOccurrence[]> {
  const db = store.db;
  const triggerIds = [...new Set(ticks.map((t) => t.triggerId))];
  const triggers = new Map((await db.trigger.findMany({ where: { id: { in: triggerIds } } })).map((t) => [t.id, t]));
  const scopes = [...triggers.values()].flatMap((t) => [agentScope(t.agentId), tenantScope(t.tenantId)]);
  const controls = await readControlScopes(store, scopes);
  const plan = planTicks(triggers, controls, ticks);
  return db.$transaction(async (tx) => {
    const inserted = await insertOccurrenceRows(
      tx,
      plan.rows.map((r) => {
        const { tenantId, agentId } = r.trigger;
        const outboxId = r.state === "PLANNED" ? r.id : null;
        return {
          id: r.id,
          triggerId: r.trigger.id,
          dueAt: r.dueAt,
          state: r.state,
          tenantId,
          agentId,
          outboxId,
          at: now,
        };
      }),
    );
    const fresh = plan.rows.filter((r) => inserted.has(r.id));
    await insertOutboxRows(
      tx,
      fresh.filter((r) => r.state === "PLANNED").map((r) => outboxRowOf(r, now)),
    );
    const byDue = new Map<number, string[]>();
    for (const [id, dueAt] of plan.latest) byDue.set(dueAt.getTime(), [...(byDue.get(dueAt.getTime()) ?? []), id]);
    for (const [millis, ids] of byDue) {
      const dueAt = new Date(millis);
      await tx.trigger.updateMany({
        where: { id: { in: ids }, OR: [{ lastDueAt: null }, { lastDueAt: { lt: dueAt } }] },
        data: { lastDueAt: dueAt },
      });
    }
    return fresh;
  });
}

/** The columns of `TriggerRow`: the batch reads nothing else. */
const TRIGGERS_IN = `SELECT "id", "tenantId", "agentId", "key", "everyMs", "anchorOffsetMs", "cron", "tz", "payload", "destination", "contract", "lastDueAt"
  FROM "Trigger" WHERE "id" IN (SELECT value FROM json_each(?))`;
const INSERT_OCCURRENCE = `INSERT INTO "Occurrence" ("id", "triggerId", "tenantId", "agentId", "dueAt", "state", "outboxId", "createdAt", "updatedAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`;
const INSERT_OUTBOX = `INSERT INTO "OutboxItem" ("id", "kind", "tenantId", "agentId", "destination", "contract", "payload", "nextAttemptAt", "createdAt", "updatedAt",
    "state", "attempts", "firstDispatchedAt", "lastAttemptAt", "leaseToken", "leaseAttemptId", "leaseExpiresAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`;
/** Lanes of these agents with a delivery planned or in flight: a fresh one there waits its turn. */
const BUSY_LANES = `SELECT DISTINCT "agentId", "destination" FROM "OutboxItem"
  WHERE "agentId" IN (SELECT value FROM json_each(?)) AND "state" IN ('PLANNED', 'DISPATCHED')`;
const ADVANCE_TRIGGER = `UPDATE "Trigger" SET "lastDueAt" = ?, "updatedAt" = ? WHERE "id" = ? AND ("lastDueAt" IS NULL OR "lastDueAt" < ?)`;

/** The same batch as one synchronous SQLite transaction: the gate is read in the transaction that writes. */
async function recordSqlite(
  sqlite: SqliteDirect,
  ticks: Tick[],
  now: Date,
  intake: TickIntake | undefined,
): Promise<{ fresh: PlannedOccurrence[]; claims: Claim[] }> {
  const at = sqliteTime(now);
  const expiresAt = intake && new Date(now.getTime() + intake.leaseMs);
  const lease = expiresAt && { token: crypto.randomUUID(), expiresAt, expiresText: sqliteTime(expiresAt) };
  const dueTime = dueTimeTexts();
  return sqlite.atomically((sql) => {
    const ids = JSON.stringify([...new Set(ticks.map((t) => t.triggerId))]);
    const found = sql(TRIGGERS_IN).all(ids) as Array<Omit<TriggerRow, "lastDueAt"> & { lastDueAt: string | null }>;
    const triggers = new Map(found.map((t) => [t.id, { ...t, lastDueAt: fromSqliteTime(t.lastDueAt) }]));
    const scopes = [...triggers.values()].flatMap((t) => [agentScope(t.agentId), tenantScope(t.tenantId)]);
    const plan = planTicks(triggers, controlsIn(sql, scopes), ticks);
    const takeAtOnce = intake && intake.limit > 0 ? freeLanes(sql, plan.rows, intake.limit) : new Set<string>();
    const fresh: PlannedOccurrence[] = [];
    const claims: Claim[] = [];
    for (const r of plan.rows) {
      const { tenantId, agentId } = r.trigger;
      const outboxId = r.state === "PLANNED" ? r.id : null;
      const row = [r.id, r.trigger.id, tenantId, agentId, dueTime.sqlite(r.dueAt), r.state, outboxId, at, at];
      if (sql(INSERT_OCCURRENCE).run(...row).changes === 0) continue;
      fresh.push(r);
      if (r.state !== "PLANNED") continue;
      const o = outboxRowOf(r, now, dueTime.iso(r.dueAt));
      const leased = lease && takeAtOnce.has(r.id) ? lease : null;
      const dispatchColumns = leased
        ? ["DISPATCHED", 1, at, at, leased.token, leased.token, leased.expiresText]
        : ["PLANNED", 0, null, null, null, null, null];
      const values = [o.id, o.kind, o.tenantId, o.agentId, o.destination, o.contract, o.payload, at, at, at];
      // The claim is built from what was written: reading the row back (RETURNING *) cost about 12 µs of
      // CPU per delivery, a quarter of the whole tick (bench/held.ts).
      if (sql(INSERT_OUTBOX).run(...values, ...dispatchColumns).changes === 1 && leased) {
        claims.push(dispatchedClaim(o, now, leased.token, leased.expiresAt));
      }
    }
    for (const [id, dueAt] of plan.latest)
      sql(ADVANCE_TRIGGER).run(dueTime.sqlite(dueAt), at, id, dueTime.sqlite(dueAt));
    return { fresh, claims };
  });
}

/** Up to `limit` planned rows that are alone in their lane: nothing there in the outbox, no other row of the batch. */
function freeLanes(sql: Sql, rows: PlannedOccurrence[], limit: number): Set<string> {
  const planned = rows.filter((r) => r.state === "PLANNED");
  const laneOf = (agentId: string, destination: string) => `${agentId}|${destination}`;
  const agents = JSON.stringify([...new Set(planned.map((r) => r.trigger.agentId))]);
  const busy = sql(BUSY_LANES).all(agents) as Array<{ agentId: string; destination: string }>;
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
const dispatchedClaim = (o: OutboxRow, now: Date, leaseToken: string, leaseExpiresAt: Date): Claim => {
  // The lease fields are set in place: spreading them in would copy the whole item once more per delivery.
  const item = plannedItem(o, now);
  item.leaseToken = leaseToken;
  item.leaseAttemptId = leaseToken;
  item.leaseExpiresAt = leaseExpiresAt;
  return { item, leaseToken, attemptId: crypto.randomUUID() };
};
