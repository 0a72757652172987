import type { Db } from "../connection/client";
import { type Page, paged } from "./pages";

/** Where an audited act is recorded: the control audit, the decision events, the outbox reconciliations. */
export const AUDIT_SOURCES = ["control", "decision", "reconcile"] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** One audited act as stored; `id` orders acts of one source at the same instant. */
export interface AuditRow {
  source: AuditSource;
  id: number | [runId: string, eventId: string];
  at: Date;
  agentId: string | null;
  actorId: string | null;
  action: string;
  outcome: string;
  detail: Record<string, string | number | null>;
}

/** The audit list's sort key: newest first, then source, then the source's own order. */
export type AuditKey = Pick<AuditRow, "at" | "source" | "id">;

export interface AuditFilter {
  agentId?: string;
  since?: Date;
  limit: number;
  after?: AuditKey;
}

/**
 * A tenant's audited acts, newest first. Each source is read through its (tenantId, at) or (agentId, at)
 * index for `limit + 1` rows after the cursor, and the three are merged: the merged first `limit + 1` are
 * exactly the first of the union, so a page costs three index range reads however deep it is.
 */
export async function auditPage(db: Db, tenantId: string, filter: AuditFilter): Promise<Page<AuditRow, AuditKey>> {
  const take = filter.limit + 1;
  const scope = { tenantId, ...(filter.agentId ? { agentId: filter.agentId } : {}) };
  const [controls, decisions, reconciles] = await Promise.all([
    db.controlAudit.findMany({
      where: { ...scope, ...timeWindow("at", "control", filter, (id) => ({ id: { gt: id as number } })) },
      orderBy: [{ at: "desc" }, { id: "asc" }],
      take,
    }),
    db.decisionEvent.findMany({
      where: { ...scope, ...timeWindow("createdAt", "decision", filter, decisionAfter) },
      orderBy: [{ createdAt: "desc" }, { runId: "asc" }, { eventId: "asc" }],
      take,
    }),
    db.outboxReconcile.findMany({
      where: { ...scope, ...timeWindow("at", "reconcile", filter, (id) => ({ id: { gt: id as number } })) },
      orderBy: [{ at: "desc" }, { id: "asc" }],
      take,
    }),
  ]);
  const rows: AuditRow[] = [
    ...controls.map((r) => ({
      source: "control" as const,
      id: r.id,
      at: r.at,
      agentId: r.agentId,
      actorId: r.actorId,
      action: r.action,
      outcome: r.outcome,
      detail: { scope: r.agentId ? "agent" : "tenant", reason: r.reason, holdLevel: r.holdLevel },
    })),
    ...decisions.map((r) => ({
      source: "decision" as const,
      id: [r.runId, r.eventId] as [string, string],
      at: r.createdAt,
      agentId: r.agentId,
      actorId: r.actorId,
      action: r.action,
      outcome: r.result,
      detail: { runId: r.runId, eventId: r.eventId, version: r.version, digest: r.digest },
    })),
    ...reconciles.map((r) => ({
      source: "reconcile" as const,
      id: r.id,
      at: r.at,
      agentId: r.agentId,
      actorId: r.actorId,
      action: `reconcile.${r.resolution}`,
      outcome: r.toState,
      detail: { key: r.itemId, fromState: r.fromState, note: r.note, lastResult: r.lastResult },
    })),
  ];
  rows.sort(compareAudit);
  return paged(rows.slice(0, take), filter.limit, ({ at, source, id }) => ({ at, source, id }));
}

function compareAudit(a: AuditKey, b: AuditKey): number {
  if (a.at.getTime() !== b.at.getTime()) return b.at.getTime() - a.at.getTime();
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  const [x, y] = [a.id, b.id];
  if (typeof x === "number" && typeof y === "number") return x - y;
  const [p, q] = [x as [string, string], y as [string, string]];
  return p[0] !== q[0] ? (p[0] < q[0] ? -1 : 1) : p[1] < q[1] ? -1 : p[1] > q[1] ? 1 : 0;
}

function decisionAfter(id: AuditKey["id"]) {
  const [runId, eventId] = id as [string, string];
  return { OR: [{ runId: { gt: runId } }, { runId, eventId: { gt: eventId } }] };
}

/** `since` and the cursor for one source: older instants, or the same instant and later in (source, id). */
function timeWindow<F extends string>(
  field: F,
  source: AuditSource,
  filter: AuditFilter,
  afterId: (id: AuditKey["id"]) => object,
): object {
  const since = filter.since ? { [field]: { gte: filter.since } } : {};
  const c = filter.after;
  if (!c) return since;
  const sameInstant =
    source > c.source ? [{ [field]: c.at }] : source === c.source ? [{ [field]: c.at, ...afterId(c.id) }] : [];
  return { AND: [since, { OR: [{ [field]: { lt: c.at } }, ...sameInstant] }] };
}
