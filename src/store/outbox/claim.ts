import crypto from "node:crypto";
import { ownedLeaseToken } from "../../policy/maintenance";
import { OUTBOX_UNFINISHED, sqlList } from "../../policy/states";
import type { Store } from "../connection/client";
import { type Dialect, PLAN_EACH_RUN, rows, type Step, sqlText } from "../connection/sql";
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
 * same moment) is in flight (leased) or waiting for a later attempt. Those blockers are few (at most what is
 * in flight or waiting to be retried), so they are found first, with each blocked lane's earliest planning
 * time (`blockers`), and every due row is then joined to its lane's: it is claimable when planned before it.
 * Taken in lane order, a claim always takes a prefix of each lane, and the claims themselves are serialised
 * (`d.laneLock`), so two processes never decide on the same snapshot.
 *
 * With 10,000 items planned in 1,000 lanes and 500 of them leased, picking the rows took on PostgreSQL 1.6-2.0 s
 * with a correlated NOT EXISTS per row, 11-15 ms with a window per lane over every unfinished row, 4-5 ms with
 * the blockers (SQLite: 15-21 ms of CPU with the window, 10 with the blockers). In the benches a claim on
 * SQLite took half the time it took with the window; on PostgreSQL it is mostly its row writes and lock waits,
 * and did not change (docs/performance.md). There the join must be a hash join (`d.noNestedLoops`): after a
 * burst into a quiet outbox the planner expects one row on either side, and its nested loop ran the blockers
 * again for each of 9,500 rows, 660 ms (test/store/claim-plan.test.ts).
 *
 * The conditions are written again on the row being updated. On PostgreSQL (READ COMMITTED) the subquery
 * reads a snapshot; a row settled by its previous lease holder after that snapshot (NEEDS_REVIEW, say) is
 * re-checked only against the outer WHERE once its lock is free. Without the repeat, the claim leased a settled
 * row, and its dispatch sent the action a second time.
 */
export const claimText = sqlText(
  (d) => `${PLAN_EACH_RUN}
UPDATE "OutboxItem" SET "leaseToken" = ?, "leaseAttemptId" = ?, "leaseExpiresAt" = ${d.time}, "updatedAt" = ${d.time}
WHERE ${d.amongPicked(
    `"id"`,
    `
  WITH blockers AS (
    SELECT "agentId", "destination", MIN("createdAt") AS "firstBlocked" FROM "OutboxItem"
    WHERE "state" IN ${sqlList(OUTBOX_UNFINISHED)} AND ("nextAttemptAt" > ${d.time} OR "leaseExpiresAt" >= ${d.time})
    GROUP BY "agentId", "destination"
  )
  SELECT o."id" FROM "OutboxItem" o
  LEFT JOIN blockers b ON b."agentId" = o."agentId" AND b."destination" = o."destination"
  WHERE o."state" IN ${sqlList(OUTBOX_UNFINISHED)} AND o."nextAttemptAt" <= ${d.time}
    AND (o."leaseExpiresAt" IS NULL OR o."leaseExpiresAt" < ${d.time})
    AND (b."firstBlocked" IS NULL OR o."createdAt" < b."firstBlocked")
    AND o."agentId" NOT IN ${d.list}
    AND o."tenantId" NOT IN ${d.list}
  ORDER BY o."createdAt", o."id"
  LIMIT CAST(? AS INTEGER)
`,
  )}
  AND "state" IN ${sqlList(OUTBOX_UNFINISHED)} AND "nextAttemptAt" <= ${d.time}
  AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ${d.time})
RETURNING *`,
);

/** The claim's parameters, in the order of `claimText`'s placeholders. */
export function claimParams(options: ClaimOptions, leaseToken: string) {
  const { now } = options;
  const expires = new Date(now.getTime() + options.leaseMs);
  const { excludeAgents, excludeTenants, limit } = options;
  return [leaseToken, leaseToken, expires, now, now, now, now, now, excludeAgents, excludeTenants, limit, now, now];
}

/** What runs in the claim's transaction before `claimText`: the lane lock, then the planner's setting. */
export function* beforeClaim(d: Dialect): Step<void> {
  if (d.laneLock) yield* rows(d.laneLock);
  if (d.noNestedLoops) yield* rows(d.noNestedLoops);
}

function* claimStep(d: Dialect, options: ClaimOptions, leaseToken: string): Step<OutboxRow[]> {
  yield* beforeClaim(d);
  const leased = yield* rows<OutboxRow>(claimText(d), ...claimParams(options, leaseToken));
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
