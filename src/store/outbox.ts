import { NOT_RUNNING } from "../policy/control";
import type { Db, Store, Tx } from "./client";
import { claimDuePostgres } from "./outbox-claim-pg";
import { claimDueSqlite, markAcknowledgedSqlite, markDispatchedSqlite, readControlsSqlite } from "./outbox-sqlite";

export type OutboxKind = "trigger" | "event" | "action" | "message";
export type OutboxState =
  | "PLANNED"
  | "DISPATCHED"
  | "ACKNOWLEDGED"
  | "OBSERVED"
  | "FAILED"
  | "NEEDS_REVIEW"
  | "ABANDONED";

/** One outbound effect, keyed by the idempotency key sent on every attempt. */
export interface PlannedDelivery {
  id: string;
  kind: OutboxKind;
  tenantId: string;
  agentId: string;
  runId?: string | null;
  /** The approved packet's digest (actions only), shown when the item needs review. */
  digest?: string | null;
  destination: string;
  contract: string;
  payload: unknown;
}

export interface OutboxItem {
  id: string;
  kind: OutboxKind;
  tenantId: string;
  agentId: string;
  runId: string | null;
  digest: string | null;
  destination: string;
  contract: string;
  payload: string;
  state: OutboxState;
  attempts: number;
  leaseToken: string | null;
  leaseAttemptId: string | null;
  leaseExpiresAt: Date | null;
  firstDispatchedAt: Date | null;
  lastAttemptAt: Date | null;
  lastResult: string | null;
  nextAttemptAt: Date;
  observedAt: Date | null;
  createdAt: Date;
}

/**
 * An item as it is when planned: the given columns, and the schema's defaults for the rest (PLANNED, no
 * attempt, due now, unleased). For a row inserted just now, without reading it back.
 */
export const plannedItem = (
  row: Pick<OutboxItem, "id" | "tenantId" | "agentId" | "destination" | "contract" | "payload"> & { kind: string },
  at: Date,
): OutboxItem => ({
  id: row.id,
  kind: row.kind as OutboxKind,
  tenantId: row.tenantId,
  agentId: row.agentId,
  destination: row.destination,
  contract: row.contract,
  payload: row.payload,
  runId: null,
  digest: null,
  state: "PLANNED",
  attempts: 0,
  leaseToken: null,
  leaseAttemptId: null,
  leaseExpiresAt: null,
  firstDispatchedAt: null,
  lastAttemptAt: null,
  lastResult: null,
  nextAttemptAt: at,
  observedAt: null,
  createdAt: at,
});

/** Inserts the item unless its key already exists; a retried producer never plans an effect twice. */
export async function planDelivery(db: Db | Tx, item: PlannedDelivery): Promise<void> {
  await db.outboxItem.upsert({
    where: { id: item.id },
    create: { ...item, runId: item.runId ?? null, digest: item.digest ?? null, payload: JSON.stringify(item.payload) },
    update: {},
  });
}

/**
 * Agents and tenants whose records say they are not RUNNING: their items are not even claimed. `draining`
 * names the scopes of those records that wait for their in-flight work (cheap to ask after every round).
 */
export async function pausedScopes(store: Store): Promise<{ agents: string[]; tenants: string[]; draining: string[] }> {
  const rows = store.sqlite
    ? [...(await readControlsSqlite(store.sqlite, null)).values()]
    : await store.db.control.findMany({
        where: { state: { in: NOT_RUNNING } },
        select: { agentId: true, tenantId: true, scope: true, state: true },
      });
  return {
    agents: rows.filter((r) => r.agentId).map((r) => r.agentId!),
    tenants: rows.filter((r) => r.scope.startsWith("tenant:")).map((r) => r.tenantId),
    draining: rows.filter((r) => r.state === "DRAINING").map((r) => r.scope),
  };
}

export interface ClaimOptions {
  now: Date;
  limit: number;
  leaseMs: number;
  excludeAgents: string[];
  excludeTenants: string[];
  /**
   * Agents that rounds under way hold, read as the claim's statement runs: a round handed over while the
   * claim waited for the connection is seen, so its lanes' later items are not taken around it.
   */
  heldAgents?: () => Iterable<string>;
}

/** The agents a claim leaves out, as its statement runs. */
export const claimExcludedAgents = (options: ClaimOptions): string[] => [
  ...options.excludeAgents,
  ...(options.heldAgents?.() ?? []),
];

export interface Claim {
  /** The item as it was claimed, before this attempt's DISPATCHED mark (its `attempts` are the earlier ones). */
  item: OutboxItem;
  leaseToken: string;
  attemptId: string;
}

/**
 * Takes a lease on due items: PLANNED ones, and DISPATCHED ones whose lease expired (their worker died or
 * timed out, so the outcome is uncertain). The whole batch shares one lease token and only rows that still
 * met the conditions carry it, so two workers never hold the same item; the claim is committed before any
 * network call. Each database does it its best way: SKIP LOCKED on PostgreSQL, prepared statements on
 * SQLite.
 */
export function claimDueItems(store: Store, options: ClaimOptions): Promise<Claim[]> {
  return store.sqlite ? claimDueSqlite(store.sqlite, options) : claimDuePostgres(store.db, options);
}

const leased = (claim: Claim) => ({ id: claim.item.id, leaseToken: claim.leaseToken });

/** Gives an item back without an attempt (for example the gate said held after the claim). */
export async function releaseLease(db: Db, claim: Claim): Promise<void> {
  await db.outboxItem.updateMany({
    where: leased(claim),
    data: { leaseToken: null, leaseAttemptId: null, leaseExpiresAt: null },
  });
}

/**
 * Takes back a first dispatch that never went out (a tick batch dispatched the item as it planned it, and the
 * delivery loop stopped before sending it): PLANNED again, unleased, the attempt not counted. Sending it
 * later is then a first attempt, not an uncertain one.
 */
export async function returnUnsent(db: Db, claim: Claim): Promise<void> {
  await db.outboxItem.updateMany({
    where: { ...leased(claim), state: "DISPATCHED", attempts: 1 },
    data: {
      state: "PLANNED",
      attempts: 0,
      firstDispatchedAt: null,
      lastAttemptAt: null,
      leaseToken: null,
      leaseAttemptId: null,
      leaseExpiresAt: null,
    },
  });
}

/**
 * Persists DISPATCHED for a wave before the network call, so a crash afterwards is known to be uncertain.
 * Returns the claims whose lease still held, i.e. the ones that may be sent.
 */
export async function markDispatchedMany(store: Store, claims: Claim[], now: Date): Promise<Claim[]> {
  if (claims.length === 0) return [];
  if (store.sqlite) return markDispatchedSqlite(store.sqlite, claims, now);
  const db = store.db;
  const leaseToken = claims[0]!.leaseToken;
  const first = claims.filter((c) => !c.item.firstDispatchedAt).map((c) => c.item.id);
  const again = claims.filter((c) => c.item.firstDispatchedAt).map((c) => c.item.id);
  const data = { state: "DISPATCHED", attempts: { increment: 1 }, lastAttemptAt: now };
  let written = 0;
  if (first.length) {
    const where = { id: { in: first }, leaseToken };
    written += (await db.outboxItem.updateMany({ where, data: { ...data, firstDispatchedAt: now } })).count;
  }
  if (again.length)
    written += (await db.outboxItem.updateMany({ where: { id: { in: again }, leaseToken }, data })).count;
  if (written === claims.length) return claims;
  const still = await db.outboxItem.findMany({
    where: { id: { in: claims.map((c) => c.item.id) }, leaseToken, lastAttemptAt: now },
    select: { id: true },
  });
  const ours = new Set(still.map((r) => r.id));
  return claims.filter((c) => ours.has(c.item.id));
}

/** Acknowledgements of a wave in one statement; items whose lease moved on are left alone. */
export async function markAcknowledgedMany(store: Store, claims: Claim[], result: string, now: Date): Promise<void> {
  if (claims.length === 0) return;
  if (store.sqlite) return markAcknowledgedSqlite(store.sqlite, claims, result, now);
  await store.db.outboxItem.updateMany({
    where: { id: { in: claims.map((c) => c.item.id) }, leaseToken: claims[0]!.leaseToken },
    data: { state: "ACKNOWLEDGED", lastResult: result, leaseToken: null, leaseExpiresAt: null },
  });
}

/** Records the destination's acknowledgement. A stale lease token (another attempt owns the item) is ignored. */
export async function markAcknowledged(db: Db, claim: Claim, result: string): Promise<boolean> {
  const written = await db.outboxItem.updateMany({
    where: leased(claim),
    data: { state: "ACKNOWLEDGED", lastResult: result, leaseToken: null, leaseExpiresAt: null },
  });
  return written.count === 1;
}

/**
 * Schedules another attempt with the same key. `PLANNED` when the destination answered with an error (the
 * effect did not happen); `DISPATCHED` when the outcome is unknown, so the next claim checks the contract.
 */
export async function markRetry(
  db: Db,
  claim: Claim,
  nextAttemptAt: Date,
  result: string,
  state: "PLANNED" | "DISPATCHED",
): Promise<boolean> {
  const written = await db.outboxItem.updateMany({
    where: leased(claim),
    data: { state, lastResult: result, nextAttemptAt, leaseToken: null, leaseExpiresAt: null },
  });
  return written.count === 1;
}

/** Ends the item in a terminal or review state with the last attempt's result. */
export async function markSettled(
  db: Db,
  claim: Claim,
  state: "FAILED" | "NEEDS_REVIEW",
  result: string,
): Promise<boolean> {
  const written = await db.outboxItem.updateMany({
    where: leased(claim),
    data: { state, lastResult: result, leaseToken: null, leaseExpiresAt: null },
  });
  return written.count === 1;
}

/** The destination's status lookup confirmed the effect exists: the last step. */
export async function markObserved(db: Db, id: string, at: Date): Promise<boolean> {
  const written = await db.outboxItem.updateMany({
    where: { id, state: "ACKNOWLEDGED" },
    data: { state: "OBSERVED", observedAt: at },
  });
  return written.count === 1;
}

export async function findOutboxItem(db: Db, id: string): Promise<OutboxItem | null> {
  return (await db.outboxItem.findUnique({ where: { id } })) as OutboxItem | null;
}
