import type { Db, Store } from "../connection/client";
import { type Dialect, rows, rowsParam, type Step, sqlText } from "../connection/sql";
import { type Claim, type OutboxItem, type OutboxRow, outboxItemOf } from "./types";

const leased = (claim: Claim) => ({ id: claim.item.id, leaseToken: claim.leaseToken });

/**
 * A wave's write, one statement for the whole wave (one round trip on PostgreSQL, with no BEGIN and COMMIT
 * around it): the previous wave's plain 200s ACKNOWLEDGED (`A`) and this wave's claims DISPATCHED (`D`), as
 * River batches its completions. Rows of (id, lease token, A or D). An acknowledgement needs the row's lease
 * token, as every settle does; a DISPATCHED mark needs the token, an unsettled state and an unexpired lease.
 */
const waveText = sqlText(
  (d) => `UPDATE "OutboxItem" SET
  "state" = CASE WHEN r."c2" = 'A' THEN 'ACKNOWLEDGED' ELSE 'DISPATCHED' END,
  "lastResult" = CASE WHEN r."c2" = 'A' THEN ? ELSE "lastResult" END,
  "attempts" = CASE WHEN r."c2" = 'A' THEN "attempts" ELSE "attempts" + 1 END,
  "lastAttemptAt" = CASE WHEN r."c2" = 'A' THEN "lastAttemptAt" ELSE ${d.time} END,
  "firstDispatchedAt" = CASE WHEN r."c2" = 'A' THEN "firstDispatchedAt" ELSE COALESCE("firstDispatchedAt", ${d.time}) END,
  "leaseToken" = CASE WHEN r."c2" = 'A' THEN NULL ELSE "leaseToken" END,
  "leaseExpiresAt" = CASE WHEN r."c2" = 'A' THEN NULL ELSE "leaseExpiresAt" END,
  "updatedAt" = ${d.time}
  FROM ${d.rowsOf(3)}
  WHERE "OutboxItem"."id" = r."c0" AND "OutboxItem"."leaseToken" = r."c1"
    AND (r."c2" = 'A' OR ("OutboxItem"."state" IN ('PLANNED', 'DISPATCHED') AND "OutboxItem"."leaseExpiresAt" > ${d.time}))
  RETURNING "OutboxItem"."id", "OutboxItem"."state"`,
);

function* waveStep(d: Dialect, acks: Acknowledgements, dispatch: Claim[], now: Date): Step<WaveWritten> {
  const values = [
    ...acks.claims.map((c) => [c.item.id, c.leaseToken, "A"]),
    ...dispatch.map((c) => [c.item.id, c.leaseToken, "D"]),
  ];
  const written = yield* rows<{ id: string; state: string }>(
    waveText(d),
    acks.result,
    now,
    now,
    now,
    rowsParam(values),
    now,
  );
  const dispatched = new Set(written.filter((w) => w.state === "DISPATCHED").map((w) => w.id));
  return {
    acknowledged: written.length - dispatched.size,
    dispatched: dispatch.filter((c) => dispatched.has(c.item.id)),
  };
}

/** Plain 200s not yet recorded, and the result they are recorded with. */
export interface Acknowledgements {
  claims: Claim[];
  result: string;
}

export const NO_ACKNOWLEDGEMENTS: Acknowledgements = { claims: [], result: "" };

export interface WaveWritten {
  /** How many acknowledgements were written (fewer when a lease had passed to another attempt). */
  acknowledged: number;
  /** The claims whose lease still held, i.e. the ones that may be sent. */
  dispatched: Claim[];
}

/**
 * Records the acknowledgements and persists DISPATCHED for the wave before its network calls, so a crash
 * afterwards is known to be uncertain. A lease that ran out may already be another process's (which sends the
 * item itself), and a settled row is never dispatched again; an acknowledgement whose lease moved on is left
 * alone.
 */
export async function markWave(
  store: Store,
  acks: Acknowledgements,
  dispatch: Claim[],
  now: Date,
): Promise<WaveWritten> {
  if (acks.claims.length === 0 && dispatch.length === 0) return { acknowledged: 0, dispatched: [] };
  return store.sql.statement((d) => waveStep(d, acks, dispatch, now));
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

/** A wave's DISPATCHED marks alone (`markWave` with no acknowledgements): the claims that may be sent. */
export async function markDispatchedMany(store: Store, claims: Claim[], now: Date): Promise<Claim[]> {
  return (await markWave(store, NO_ACKNOWLEDGEMENTS, claims, now)).dispatched;
}
