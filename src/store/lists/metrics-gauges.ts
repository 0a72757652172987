import { NOT_RUNNING, OUTBOX_UNFINISHED } from "../../policy/states";
import type { Db } from "../connection/client";

/** The database facts `/metrics` reports, the same for every process that reads them. */
export interface MetricsGauges {
  approvalsOpen: number;
  oldestOpenApproval: Date | null;
  /** Undelivered outbox rows per kind, and the oldest one's creation. */
  pending: Array<{ kind: string; count: number; oldest: Date | null }>;
  /** Held work by kind: trigger occurrences, inbound events, and planned actions of paused agents. */
  held: { occurrence: number; inbound_event: number; action: number };
}

/**
 * Read at scrape time (the caller caches it a few seconds). Each read is an index range: runs through
 * (tenantId, state, createdAt), outbox rows and occurrences through (tenantId, state), events through
 * (state, agentId), the paused records through (state).
 */
export async function readMetricsGauges(db: Db): Promise<MetricsGauges> {
  const tenantIds = (await db.tenant.findMany({ select: { id: true } })).map((t) => t.id);
  const paused = await db.control.findMany({
    where: { state: { in: NOT_RUNNING } },
    select: { agentId: true, tenantId: true },
  });
  const pausedTenants = paused.filter((c) => !c.agentId).map((c) => c.tenantId);
  const pausedAgents = paused.flatMap((c) => (c.agentId ? [c.agentId] : []));
  const [open, pending, occurrences, events, heldActions] = await Promise.all([
    db.run.aggregate({
      where: { tenantId: { in: tenantIds }, state: "waiting" },
      _count: { _all: true },
      _min: { createdAt: true },
    }),
    db.outboxItem.groupBy({
      by: ["kind"],
      where: { tenantId: { in: tenantIds }, state: { in: OUTBOX_UNFINISHED } },
      _count: { _all: true },
      _min: { createdAt: true },
    }),
    db.occurrence.count({ where: { tenantId: { in: tenantIds }, state: "HELD" } }),
    db.inboxEvent.count({ where: { state: "HELD" } }),
    paused.length === 0
      ? 0
      : db.outboxItem.count({
          where: {
            state: "PLANNED",
            OR: [{ agentId: { in: pausedAgents } }, { tenantId: { in: pausedTenants } }],
          },
        }),
  ]);
  return {
    approvalsOpen: open._count._all,
    oldestOpenApproval: open._min.createdAt,
    pending: pending.map((g) => ({ kind: g.kind, count: g._count._all, oldest: g._min.createdAt })),
    held: { occurrence: occurrences, inbound_event: events, action: heldActions },
  };
}
