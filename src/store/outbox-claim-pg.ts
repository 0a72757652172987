import crypto from "node:crypto";
import type { Db } from "./client";
import { type Claim, type ClaimOptions, claimExcludedAgents, type OutboxItem } from "./outbox";

/**
 * The PostgreSQL claim (design.md section 6): one statement picks due rows with `FOR UPDATE SKIP LOCKED`
 * and leases them, so concurrent workers on several processes skip each other's rows instead of queueing
 * behind them or racing on a conditional update. The statement commits before any network call.
 *
 * Timestamps: Prisma stores DateTime in `timestamp(3)` columns as UTC wall-clock time without a zone. The
 * clock is therefore passed as ISO text and turned into UTC wall-clock time in SQL
 * (`$1::timestamptz AT TIME ZONE 'UTC'`), which holds whatever the session's TimeZone setting is.
 */
const CLAIM_SQL = `
WITH due AS (
  SELECT id FROM "OutboxItem"
  WHERE state IN ('PLANNED', 'DISPATCHED')
    AND "nextAttemptAt" <= ($1::timestamptz AT TIME ZONE 'UTC')
    AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ($1::timestamptz AT TIME ZONE 'UTC'))
    AND "agentId" NOT IN (SELECT jsonb_array_elements_text($2::jsonb))
    AND "tenantId" NOT IN (SELECT jsonb_array_elements_text($3::jsonb))
  ORDER BY "nextAttemptAt", "createdAt", id
  LIMIT $4::int
  FOR UPDATE SKIP LOCKED
)
UPDATE "OutboxItem" AS item
SET "leaseToken" = $6,
    "leaseAttemptId" = $6,
    "leaseExpiresAt" = ($5::timestamptz AT TIME ZONE 'UTC'),
    "updatedAt" = ($1::timestamptz AT TIME ZONE 'UTC')
FROM due
WHERE item.id = due.id
RETURNING item.id, item."leaseToken", item."leaseAttemptId"`;

export async function claimDuePostgres(db: Db, options: ClaimOptions): Promise<Claim[]> {
  const leaseExpiresAt = new Date(options.now.getTime() + options.leaseMs);
  // One token for the whole batch, as on SQLite: a wave's DISPATCHED and ACKNOWLEDGED writes are one statement each.
  const leaseToken = crypto.randomUUID();
  const leased = await db.$queryRawUnsafe<Array<{ id: string; leaseToken: string; leaseAttemptId: string }>>(
    CLAIM_SQL,
    options.now.toISOString(),
    JSON.stringify(claimExcludedAgents(options)),
    JSON.stringify(options.excludeTenants),
    options.limit,
    leaseExpiresAt.toISOString(),
    leaseToken,
  );
  if (leased.length === 0) return [];
  // In claim order (due order, then key), which the delivery loop keeps within each lane.
  const rows = await db.outboxItem.findMany({
    where: { id: { in: leased.map((l) => l.id) }, leaseToken },
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => ({ item: row as OutboxItem, leaseToken, attemptId: crypto.randomUUID() }));
}
