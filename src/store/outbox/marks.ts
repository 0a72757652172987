import type { Db, Store } from "../connection/client";
import { count, type Dialect, rows, type Step, sqlText } from "../connection/sql";
import { type Claim, type OutboxItem, type OutboxRow, outboxItemOf } from "./types";

const leased = (claim: Claim) => ({ id: claim.item.id, leaseToken: claim.leaseToken });

/**
 * A wave's rows, each still under the lease its claim took: one statement for the whole wave (one round trip on
 * PostgreSQL, not one per item). The ids find the rows by key; the id-and-token pairs keep the lease check.
 */
const UNDER_LEASE = (d: Dialect) => `"id" IN ${d.list} AND ("id" || ' ' || "leaseToken") IN ${d.list}`;
const underLease = (claims: Claim[]): [string[], string[]] => [
  claims.map((c) => c.item.id),
  claims.map((c) => `${c.item.id} ${c.leaseToken}`),
];

const dispatchText = sqlText(
  (d) => `UPDATE "OutboxItem" SET "state" = 'DISPATCHED', "attempts" = "attempts" + 1,
  "lastAttemptAt" = ${d.time}, "firstDispatchedAt" = COALESCE("firstDispatchedAt", ${d.time}), "updatedAt" = ${d.time}
  WHERE ${UNDER_LEASE(d)} RETURNING "id"`,
);
const acknowledgeText = sqlText(
  (d) => `UPDATE "OutboxItem" SET "state" = 'ACKNOWLEDGED', "lastResult" = ?,
  "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${d.time} WHERE ${UNDER_LEASE(d)}`,
);

function* dispatchStep(d: Dialect, claims: Claim[], now: Date): Step<Claim[]> {
  const written = yield* rows<{ id: string }>(dispatchText(d), now, now, now, ...underLease(claims));
  const ours = new Set(written.map((r) => r.id));
  return claims.filter((c) => ours.has(c.item.id));
}

function* acknowledgeStep(d: Dialect, claims: Claim[], result: string, now: Date): Step<number> {
  return yield* count(acknowledgeText(d), result, now, ...underLease(claims));
}

/**
 * Persists DISPATCHED for a wave before the network call, so a crash afterwards is known to be uncertain.
 * Returns the claims whose lease still held, i.e. the ones that may be sent.
 */
export async function markDispatchedMany(store: Store, claims: Claim[], now: Date): Promise<Claim[]> {
  return claims.length === 0 ? [] : store.sql.write((d) => dispatchStep(d, claims, now));
}

/**
 * Acknowledgements of a wave in one transaction; items whose lease moved on are left alone. Returns how
 * many were written (fewer than the claims when a lease had passed to another attempt).
 */
export async function markAcknowledgedMany(store: Store, claims: Claim[], result: string, now: Date): Promise<number> {
  return claims.length ? store.sql.write((d) => acknowledgeStep(d, claims, result, now)) : 0;
}

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
  const row = await db.outboxItem.findUnique({ where: { id } });
  return row ? outboxItemOf(row as OutboxRow) : null;
}
