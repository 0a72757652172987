import { leaseTokenPrefix } from "../../policy/maintenance";
import { OUTBOX_UNFINISHED } from "../../policy/states";
import type { Db } from "../connection/client";
import { type Claim, type OutboxRow, outboxItemOf } from "./types";

/**
 * What the run `owner` still holds leased: intent only (PLANNED) or sent without a receipt (DISPATCHED).
 * Each comes back as the claim that run held, so a classification writes only while its lease is unchanged
 * (another process that took the item over meanwhile wins).
 */
export async function leftLeased(db: Db, owner: string): Promise<Claim[]> {
  const rows = await db.outboxItem.findMany({
    where: { state: { in: OUTBOX_UNFINISHED }, leaseToken: { startsWith: leaseTokenPrefix(owner) } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => {
    const item = outboxItemOf(row as OutboxRow);
    return { item, leaseToken: item.leaseToken!, attemptId: item.leaseAttemptId ?? item.leaseToken! };
  });
}

/** Receipts recorded since `since` whose contract names a lookup, still not observed: reconciled after a stop. */
export async function acknowledgedWithLookupSince(db: Db, since: Date): Promise<Claim[]> {
  const rows = await db.outboxItem.findMany({
    where: { state: "ACKNOWLEDGED", updatedAt: { gte: since }, contract: { contains: " lookup " } },
  });
  return rows.map((row) => {
    const item = outboxItemOf(row as OutboxRow);
    return { item, leaseToken: "", attemptId: "" };
  });
}

/** Gives a left lease back, due now: the delivery loop claims it next (the contract rule runs there again). */
export async function freeLeftLease(db: Db, claim: Claim, now: Date): Promise<boolean> {
  const written = await db.outboxItem.updateMany({
    where: { id: claim.item.id, leaseToken: claim.leaseToken },
    data: { leaseToken: null, leaseAttemptId: null, leaseExpiresAt: null, nextAttemptAt: now },
  });
  return written.count === 1;
}
