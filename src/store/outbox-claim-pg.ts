import type { Db } from "./client";
import type { Claim, ClaimOptions, OutboxItem } from "./outbox";

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
  ORDER BY "nextAttemptAt", "createdAt"
  LIMIT $4::int
  FOR UPDATE SKIP LOCKED
)
UPDATE "OutboxItem" AS item
SET "leaseToken" = gen_random_uuid()::text,
    "leaseAttemptId" = gen_random_uuid()::text,
    "leaseExpiresAt" = ($5::timestamptz AT TIME ZONE 'UTC'),
    "updatedAt" = ($1::timestamptz AT TIME ZONE 'UTC')
FROM due
WHERE item.id = due.id
RETURNING item.id, item."leaseToken", item."leaseAttemptId"`;

export async function claimDuePostgres(db: Db, options: ClaimOptions): Promise<Claim[]> {
  const leaseExpiresAt = new Date(options.now.getTime() + options.leaseMs);
  const leased = await db.$queryRawUnsafe<Array<{ id: string; leaseToken: string; leaseAttemptId: string }>>(
    CLAIM_SQL,
    options.now.toISOString(),
    JSON.stringify(options.excludeAgents),
    JSON.stringify(options.excludeTenants),
    options.limit,
    leaseExpiresAt.toISOString(),
  );
  if (leased.length === 0) return [];
  const rows = await db.outboxItem.findMany({ where: { id: { in: leased.map((l) => l.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row as OutboxItem]));
  return leased.flatMap((l) => {
    const item = byId.get(l.id);
    // A row leased by this statement keeps our token until the lease expires; re-check it anyway.
    return item && item.leaseToken === l.leaseToken
      ? [{ item, leaseToken: l.leaseToken, attemptId: l.leaseAttemptId }]
      : [];
  });
}
