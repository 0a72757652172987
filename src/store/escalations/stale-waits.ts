import type { EscalationKind } from "../../policy/escalation";
import { escalationItemKey } from "../../policy/ids";
import { NOT_RUNNING, OUTBOX_UNDELIVERED } from "../../policy/states";
import type { Store } from "../connection/client";
import { countHeldWorkOf, type HeldCounts } from "../held/counts";

/** Something that waits on a person now, whether or not it is stale yet. */
export interface Wait {
  itemKey: string;
  kind: EscalationKind;
  tenantId: string;
  agentId: string;
  subject: string;
  /** A new version of the same item (a changed packet, a new pause) is a new wait. */
  itemVersion: number;
  since: Date;
  /** The item's own delay for level 1 (a run's escalateAfter), if it has one. */
  ownDelayMs: number | null;
}

/**
 * Every current wait, read from the database on each tick (never from events, so a change made while no
 * process ran is found at the first tick after start). Undelivered actions of a paused agent are its
 * paused wait, not deliveries of their own.
 */
export async function listWaits(store: Store): Promise<Wait[]> {
  const { db } = store;
  const [runs, controls, review, undelivered] = await Promise.all([
    db.run.findMany({ where: { state: "waiting" }, orderBy: { createdAt: "asc" } }),
    db.control.findMany({ where: { state: { in: NOT_RUNNING }, agentId: { not: null } } }),
    db.outboxItem.findMany({ where: { state: "NEEDS_REVIEW" }, orderBy: { createdAt: "asc" } }),
    db.outboxItem.findMany({
      where: { kind: "action", state: { in: OUTBOX_UNDELIVERED } },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  const [versions, held] = await Promise.all([
    db.packetVersion.findMany({
      where: { runId: { in: runs.map((r) => r.id) } },
      select: { runId: true, version: true, createdAt: true },
    }),
    countHeldWorkOf(
      store,
      controls.map((c) => c.agentId!),
    ),
  ]);
  const versionSince = new Map(versions.map((v) => [`${v.runId}#${v.version}`, v.createdAt]));
  const waits: Wait[] = runs.map((run) => ({
    itemKey: escalationItemKey("approval", run.id),
    kind: "approval",
    tenantId: run.tenantId,
    agentId: run.agentId,
    subject: run.id,
    itemVersion: run.version,
    since: versionSince.get(`${run.id}#${run.version}`) ?? run.createdAt,
    ownDelayMs: run.escalateAfter === null ? null : run.escalateAfter * 1000,
  }));
  const paused = new Set<string>();
  const waitingAgents = new Set(runs.map((r) => r.agentId));
  for (const control of controls) {
    const agentId = control.agentId!;
    paused.add(agentId);
    if (!waitingAgents.has(agentId) && !hasHeld(held.get(agentId)!)) continue;
    const since = control.setAt ?? new Date(0);
    waits.push({
      itemKey: escalationItemKey("paused", agentId),
      kind: "paused",
      tenantId: control.tenantId,
      agentId,
      subject: agentId,
      itemVersion: Math.floor(since.getTime() / 1000),
      since,
      ownDelayMs: null,
    });
  }
  for (const item of review) waits.push(outboxWait("review", item, item.updatedAt));
  for (const item of undelivered)
    if (!paused.has(item.agentId)) waits.push(outboxWait("delivery", item, item.createdAt));
  return waits;
}

const hasHeld = (c: HeldCounts) => c.occurrences + c.inboundEvents + c.outboxActions + c.needsReview > 0;

function outboxWait(
  kind: "review" | "delivery",
  item: { id: string; tenantId: string; agentId: string },
  since: Date,
): Wait {
  return {
    itemKey: escalationItemKey(kind, item.id),
    kind,
    tenantId: item.tenantId,
    agentId: item.agentId,
    subject: item.id,
    itemVersion: 0,
    since,
    ownDelayMs: null,
  };
}
