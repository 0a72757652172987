import type { MisfirePolicy } from "../../policy/misfire";
import type { Db } from "../connection/client";

/** Held occurrences per trigger with that trigger's misfire policy (what a release will do with them). */
export async function heldByPolicy(
  db: Db,
  agentId: string,
): Promise<Array<{ triggerId: string; misfire: MisfirePolicy; held: number }>> {
  const rows = await db.occurrence.groupBy({ by: ["triggerId"], where: { agentId, state: "HELD" }, _count: true });
  if (rows.length === 0) return [];
  const triggers = await db.trigger.findMany({
    where: { id: { in: rows.map((r) => r.triggerId) } },
    select: { id: true, misfire: true },
  });
  const policy = new Map(triggers.map((t) => [t.id, t.misfire as MisfirePolicy]));
  // A trigger deleted meanwhile has its held rows SKIPPED by the release.
  return rows.map((r) => ({ triggerId: r.triggerId, misfire: policy.get(r.triggerId) ?? "skip", held: r._count }));
}

/** Everything a release let go, by kind (the log line and the release's own counts of occurrences). */
export interface ReleaseCounts {
  occurrencesReleased: number;
  occurrencesSkipped: number;
  /** Held inbound events handed back to their agents' ordered queues by this release. */
  events: number;
  /** Approved actions that were waiting when the release opened and had not gone out before it. */
  actions: number;
}

export async function releaseCounts(db: Db, releaseId: string): Promise<ReleaseCounts | null> {
  const release = await db.release.findUnique({ where: { id: releaseId } });
  if (!release) return null;
  const scope = release.agentId ? { agentId: release.agentId } : { tenantId: release.tenantId };
  const [events, actions] = await Promise.all([
    db.inboxEvent.count({ where: { releaseId } }),
    db.outboxItem.count({
      where: {
        ...scope,
        kind: "action",
        createdAt: { lte: release.createdAt },
        OR: [{ firstDispatchedAt: null, state: "PLANNED" }, { firstDispatchedAt: { gte: release.createdAt } }],
      },
    }),
  ]);
  return { occurrencesReleased: release.released, occurrencesSkipped: release.skipped, events, actions };
}

/** The latest successful resume of a scope at or after `since` (a re-sent Confirm shows who resumed). */
export async function lastResumeSince(db: Db, scope: string, since: Date) {
  return db.controlAudit.findFirst({
    where: { scope, action: "resume", outcome: "resumed", at: { gte: since } },
    orderBy: { id: "desc" },
    select: { actorId: true, at: true },
  });
}
