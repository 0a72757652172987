import { triggerKeyOf } from "../../policy/ids";
import type { MisfirePolicy } from "../../policy/misfire";
import { INBOX_WAITING, OUTBOX_UNDELIVERED, sqlList } from "../../policy/states";
import type { Db, Store } from "../connection/client";
import { asDate, rows, sqlText } from "../connection/sql";
import { AGENT_INDEXED, agentOutbox } from "../outbox/agent-index";

/**
 * The counts of held work (design.md section 4), read from the durable rows: what a resume would release,
 * what a release let go, what waits longest, and which agents hold work no release covers.
 */

/** What a resume of this agent would release. */
export interface HeldCounts {
  /** Held trigger occurrences in all, and per trigger key. */
  occurrences: number;
  occurrencesByTrigger: Record<string, number>;
  /** Inbound events not yet delivered to the agent (held, or queued behind an earlier one). */
  inboundEvents: number;
  /** Outbox items planned and never attempted: held approved actions (and deliveries planned just before a pause). */
  outboxActions: number;
  /** Outbox items waiting for their next attempt after a failed one: retrying, not held. */
  retrying: number;
  needsReview: number;
}

/** Held occurrences of one agent per trigger id. */
const heldPerTrigger = (db: Db, agentId: string) =>
  db.occurrence.groupBy({ by: ["triggerId"], where: { agentId, state: "HELD" }, _count: true });

export async function countHeldWork(store: Store, agentId: string): Promise<HeldCounts> {
  return (await countHeldWorkOf(store, [agentId])).get(agentId)!;
}

/** Outbox rows that a resume would release or that wait for a person, per agent, state and attempts. */
const heldOutboxOf = sqlText(
  (d) => `SELECT "agentId", "state", "attempts", COUNT(*) AS "n" FROM ${agentOutbox(d)}
  WHERE "agentId" IN ${d.list} AND "state" IN ('PLANNED', 'NEEDS_REVIEW') AND ${AGENT_INDEXED}
  GROUP BY "agentId", "state", "attempts"`,
);

/**
 * The held counts of many agents in three reads, whatever their number (a page of the agents list). An item
 * that was attempted and waits for its next attempt is counted as retrying: a pause did not hold it.
 */
export async function countHeldWorkOf(store: Store, agentIds: readonly string[]): Promise<Map<string, HeldCounts>> {
  const { db } = store;
  const agentId = { in: [...agentIds] };
  const [perTrigger, events, outbox] = await Promise.all([
    db.occurrence.groupBy({ by: ["agentId", "triggerId"], where: { agentId, state: "HELD" }, _count: true }),
    db.inboxEvent.groupBy({ by: ["agentId"], where: { agentId, state: { in: INBOX_WAITING } }, _count: true }),
    store.sql.read(function* (d) {
      return yield* rows<{ agentId: string; state: string; attempts: unknown; n: unknown }>(heldOutboxOf(d), [
        ...agentIds,
      ]);
    }),
  ]);
  const counts = new Map(agentIds.map((id) => [id, noneHeld()]));
  for (const row of perTrigger) {
    const held = counts.get(row.agentId)!;
    held.occurrences += row._count;
    held.occurrencesByTrigger[triggerKeyOf(row.agentId, row.triggerId)] = row._count;
  }
  for (const row of events) counts.get(row.agentId)!.inboundEvents = row._count;
  for (const row of outbox) {
    const held = counts.get(row.agentId)!;
    const n = Number(row.n);
    if (row.state !== "PLANNED") held.needsReview += n;
    else if (Number(row.attempts) > 0) held.retrying += n;
    else held.outboxActions += n;
  }
  return counts;
}

const noneHeld = (): HeldCounts => ({
  occurrences: 0,
  occurrencesByTrigger: {},
  inboundEvents: 0,
  outboxActions: 0,
  retrying: 0,
  needsReview: 0,
});

/** Held occurrences per trigger with that trigger's misfire policy (what a release will do with them). */
export async function heldByPolicy(
  db: Db,
  agentId: string,
): Promise<Array<{ triggerId: string; misfire: MisfirePolicy; held: number }>> {
  const rows = await heldPerTrigger(db, agentId);
  if (rows.length === 0) return [];
  const triggers = await db.trigger.findMany({
    where: { id: { in: rows.map((r) => r.triggerId) } },
    select: { id: true, misfire: true },
  });
  const policy = new Map(triggers.map((t) => [t.id, t.misfire as MisfirePolicy]));
  // A trigger deleted meanwhile has its held rows SKIPPED by the release.
  return rows.map((r) => ({ triggerId: r.triggerId, misfire: policy.get(r.triggerId) ?? "skip", held: r._count }));
}

export interface OldestWaits {
  approval: { runId: string; operation: string | null; since: Date } | null;
  undelivered: { id: string; destination: string; state: string; since: Date } | null;
}

const oldestUndelivered = sqlText(
  (d) => `SELECT "id", "destination", "state", "createdAt" FROM ${agentOutbox(d)}
  WHERE "agentId" = ? AND "state" IN ${sqlList(OUTBOX_UNDELIVERED)} AND ${AGENT_INDEXED}
  ORDER BY "createdAt" LIMIT 1`,
);

/** The agent's oldest waiting approval and its oldest undelivered outbox row. */
export async function findOldestWaits(store: Store, agentId: string): Promise<OldestWaits> {
  const [run, [item]] = await Promise.all([
    store.db.run.findFirst({ where: { agentId, state: "waiting" }, orderBy: { createdAt: "asc" } }),
    store.sql.read(function* (d) {
      return yield* rows<{ id: string; destination: string; state: string; createdAt: unknown }>(
        oldestUndelivered(d),
        agentId,
      );
    }),
  ]);
  return {
    approval: run ? { runId: run.id, operation: run.operation, since: run.createdAt } : null,
    undelivered: item
      ? { id: item.id, destination: item.destination, state: item.state, since: asDate(item.createdAt) }
      : null,
  };
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
  // By tenant always: the agent's index holds open rows only, and these rows may be sent already.
  const scope = { tenantId: release.tenantId, ...(release.agentId ? { agentId: release.agentId } : {}) };
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

/**
 * Agents holding work that no open release covers. With their gate open, such rows are orphans: a tick or
 * an event that read the gate just before a resume committed, after that resume's release had finished.
 * The held rows are read before the open releases: a resume that commits between the two reads is then seen
 * with its release. Read the other way round, a resume committing in between left every held agent of its
 * tenant looking uncovered (10,000 of them in bench/release-memory.ts, and recovery releases opened for them).
 */
export async function uncoveredHeldAgents(db: Db): Promise<Array<{ agentId: string; tenantId: string }>> {
  // Asked every reconcile tick, so each read seeks an index instead of reading every row ever recorded:
  // occurrences through (tenantId, state), one tenant at a time; events through (state, agentId).
  const tenantIds = (await db.tenant.findMany({ select: { id: true } })).map((t) => t.id);
  const [occurrences, events] = await Promise.all([
    db.occurrence.groupBy({ by: ["agentId", "tenantId"], where: { tenantId: { in: tenantIds }, state: "HELD" } }),
    db.inboxEvent.groupBy({ by: ["agentId", "tenantId"], where: { state: "HELD" } }),
  ]);
  const open = await db.release.findMany({ where: { state: "OPEN" }, select: { agentId: true, tenantId: true } });
  const coveredAgents = new Set(open.filter((r) => r.agentId).map((r) => r.agentId));
  const coveredTenants = new Set(open.filter((r) => !r.agentId).map((r) => r.tenantId));
  const byAgent = new Map([...occurrences, ...events].map((r) => [r.agentId, r]));
  return [...byAgent.values()].filter((r) => !coveredAgents.has(r.agentId) && !coveredTenants.has(r.tenantId));
}
