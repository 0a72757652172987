import crypto from "node:crypto";
import { ownedLeaseToken } from "../../policy/maintenance";
import { OUTBOX_UNFINISHED, sqlList } from "../../policy/states";
import type { Store } from "../connection/client";
import { type Dialect, rows, type Step, sqlText } from "../connection/sql";
import { type Claim, type OutboxRow, outboxItemOf } from "./types";

export interface ClaimOptions {
  now: Date;
  limit: number;
  leaseMs: number;
  excludeAgents: string[];
  excludeTenants: string[];
  /** The run that takes the lease (its id prefixes the token, so its leases are found if it dies). */
  owner?: string;
  /** Test only: called with the leased rows' count inside the transaction, which then stays open a while. */
  beforeCommit?: (leased: number) => void;
}

/**
 * A lane is one agent's items to one destination; they go one after another, in lane order (planning
 * time, then key: a release's occurrence keys sort by due time). The database enforces it, for every
 * process alike: an item is claimable only when no unfinished item of its lane planned before it (or at the
 * same moment) is in flight (leased) or waiting for a later attempt. Those blockers are found once per
 * claim, a lane at a time (`blocked`), so a claim costs the same whatever a lane's length. Taken in lane
 * order, a claim then always takes a prefix of each lane, and the claims themselves are serialised
 * (`d.laneLock`), so two processes never decide on the same snapshot.
 */
const claimText = sqlText(
  (d) => `
UPDATE "OutboxItem" SET "leaseToken" = ?, "leaseAttemptId" = ?, "leaseExpiresAt" = ${d.time}, "updatedAt" = ${d.time}
WHERE "id" IN (
  WITH blocked AS (
    SELECT "agentId", "destination", MIN("createdAt") AS "createdAt" FROM "OutboxItem"
    WHERE "state" IN ${sqlList(OUTBOX_UNFINISHED)} AND ("nextAttemptAt" > ${d.time} OR "leaseExpiresAt" >= ${d.time})
    GROUP BY "agentId", "destination"
  )
  SELECT x."id" FROM "OutboxItem" x
  WHERE x."state" IN ${sqlList(OUTBOX_UNFINISHED)} AND x."nextAttemptAt" <= ${d.time}
    AND (x."leaseExpiresAt" IS NULL OR x."leaseExpiresAt" < ${d.time})
    AND x."agentId" NOT IN ${d.list}
    AND x."tenantId" NOT IN ${d.list}
    AND NOT EXISTS (
      SELECT 1 FROM blocked b
      WHERE b."agentId" = x."agentId" AND b."destination" = x."destination" AND b."createdAt" <= x."createdAt"
    )
  ORDER BY x."createdAt", x."id"
  LIMIT CAST(? AS INTEGER)
)
RETURNING *`,
);

function* claimStep(d: Dialect, options: ClaimOptions, leaseToken: string): Step<OutboxRow[]> {
  if (d.laneLock) yield* rows(d.laneLock);
  const text = claimText(d);
  const { now } = options;
  const expires = new Date(now.getTime() + options.leaseMs);
  const leased = yield* rows<OutboxRow>(
    text,
    leaseToken,
    leaseToken,
    expires,
    now,
    now,
    now,
    now,
    now,
    options.excludeAgents,
    options.excludeTenants,
    options.limit,
  );
  if (options.beforeCommit && leased.length) {
    options.beforeCommit(leased.length);
    if (d.holdOpen) yield* rows(d.holdOpen);
  }
  return leased;
}

/**
 * Takes a lease on due items: PLANNED ones, and DISPATCHED ones whose lease expired (their worker died or
 * timed out, so the outcome is uncertain). The whole batch shares one lease token and only rows that still
 * met the conditions carry it, so two workers never hold the same item; the claim is committed before any
 * network call. Returned in claim order, which the delivery loop keeps within each lane.
 */
export async function claimDueItems(store: Store, options: ClaimOptions): Promise<Claim[]> {
  const leaseToken = ownedLeaseToken(options.owner ?? "", crypto.randomUUID());
  const claimed = (await store.sql.write((d) => claimStep(d, options, leaseToken))).map(outboxItemOf);
  claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return claimed.map((item) => ({ item, leaseToken, attemptId: crypto.randomUUID() }));
}
