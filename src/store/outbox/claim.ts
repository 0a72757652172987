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
 * same moment) is in flight (leased) or waiting for a later attempt. Those blockers are found in one pass
 * over the unfinished rows, a window per lane in planning order (`blocked`: whether any row up to this one's
 * planning time, its peers included, blocks). With 10,000 items planned in 1,000 lanes and 500 of them leased,
 * a correlated NOT EXISTS per row took a claim on PostgreSQL 1.6-2.0 s, the window 18-39 ms. Taken in lane
 * order, a claim then always takes a prefix of each lane, and the claims themselves are serialised
 * (`d.laneLock`), so two processes never decide on the same snapshot.
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
  WITH lanes AS (
    SELECT "id", "agentId", "tenantId", "createdAt", "nextAttemptAt", "leaseExpiresAt",
      MAX(CASE WHEN "nextAttemptAt" > ${d.time} OR "leaseExpiresAt" >= ${d.time} THEN 1 ELSE 0 END)
        OVER (PARTITION BY "agentId", "destination" ORDER BY "createdAt") AS "blocked"
    FROM "OutboxItem" WHERE "state" IN ${sqlList(OUTBOX_UNFINISHED)}
  )
  SELECT "id" FROM lanes
  WHERE "blocked" = 0 AND "nextAttemptAt" <= ${d.time}
    AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ${d.time})
    AND "agentId" NOT IN ${d.list}
    AND "tenantId" NOT IN ${d.list}
  ORDER BY "createdAt", "id"
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

function* claimStep(d: Dialect, options: ClaimOptions, leaseToken: string): Step<OutboxRow[]> {
  if (d.laneLock) yield* rows(d.laneLock);
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
