import crypto from "node:crypto";
import { type MisfirePolicy, planMisfire } from "../policy/misfire";
import { insertOutboxRows, markReleased } from "./bulk-insert";
import type { Db, Store, Tx } from "./client";
import { checkGate } from "./gate";
import { releaseStepSqlite } from "./releases-sqlite";

export interface ReleaseRequest {
  tenantId: string;
  /** null: a tenant-wide release (every agent of the tenant whose own gate is open). */
  agentId: string | null;
  requestedBy: string | null;
  heldSince: Date | null;
  now: Date;
}

/** Written in the same transaction as the resume (or the recovery) that causes it. */
export async function openRelease(tx: Tx, request: ReleaseRequest): Promise<string> {
  const id = crypto.randomUUID();
  await tx.release.create({
    data: {
      id,
      tenantId: request.tenantId,
      agentId: request.agentId,
      requestedBy: request.requestedBy,
      heldSince: request.heldSince,
      createdAt: request.now,
    },
  });
  return id;
}

/** How long after any release of an agent (or its tenant) held rows are not yet called orphans. */
const RECOVERY_GRACE_MS = 5_000;

/**
 * A release for held work found with its gate open and nobody releasing it; null when the gate is shut or a
 * release of this agent or its tenant is open or just happened (a resume's own release will take the rows).
 * The gate is read first: seeing it open means the resume that opened it, and its release, are committed.
 */
export async function openRecoveryRelease(
  db: Db,
  agentId: string,
  tenantId: string,
  now: Date,
): Promise<string | null> {
  if ((await checkGate(db, agentId, tenantId)).held) return null;
  const recent = await db.release.findFirst({
    where: {
      tenantId,
      AND: [
        { OR: [{ agentId }, { agentId: null }] },
        { OR: [{ state: "OPEN" }, { createdAt: { gt: new Date(now.getTime() - RECOVERY_GRACE_MS) } }] },
      ],
    },
    select: { id: true },
  });
  if (recent) return null;
  return db.$transaction((tx) => openRelease(tx, { tenantId, agentId, requestedBy: "recovery", heldSince: null, now }));
}

export type BatchOutcome =
  /** `gated`: agents whose own gate is still closed (paused themselves); their work waits for their resume. */
  | { kind: "batch"; released: number; skipped: number; planned: number; gated: string[] }
  /** Nothing left: held events were handed to their agents' ordered queues and the release is DONE. */
  | { kind: "finished"; eventAgents: string[] };

/**
 * One step of the durable release loop (design.md section 10): for each trigger of the step, its HELD rows
 * are read, the misfire policy applied, the deliveries planned and the rows marked RELEASED or SKIPPED in
 * the step's transaction. Re-running after a crash, or running twice, finds nothing left to do. On SQLite
 * a step takes many triggers through prepared statements (releases-sqlite.ts); here it is one trigger.
 */
export async function releaseNextBatch(
  store: Store,
  releaseId: string,
  gated: Set<string>,
  triggersPerStep: number,
): Promise<BatchOutcome> {
  const db = store.db;
  // SQLite reads the release in the step's own transaction; the release is read here only to finish it.
  const step = store.sqlite && (await releaseStepSqlite(store.sqlite, releaseId, gated, triggersPerStep));
  if (step) return step;
  const release = await db.release.findUnique({ where: { id: releaseId } });
  if (!release || release.state === "DONE") return { kind: "finished", eventAgents: [] };
  const scope = release.agentId ? { agentId: release.agentId } : { tenantId: release.tenantId };
  if (store.sqlite) return finish(db, releaseId, scope, gated);
  const next = await db.occurrence.findFirst({
    where: { ...scope, state: "HELD", agentId: { notIn: [...gated] } },
    select: { agentId: true, triggerId: true },
  });
  if (!next) return finish(db, releaseId, scope, gated);
  if ((await checkGate(db, next.agentId, release.tenantId)).held) return { ...NOTHING, gated: [next.agentId] };
  return db.$transaction(async (tx) => {
    const held = await tx.occurrence.findMany({
      where: { triggerId: next.triggerId, state: "HELD" },
      select: { id: true, dueAt: true },
    });
    const trigger = await tx.trigger.findUnique({ where: { id: next.triggerId } });
    const ids = held.map((o) => o.id);
    if (!trigger) {
      await tx.occurrence.updateMany({ where: { id: { in: ids } }, data: { state: "SKIPPED", releaseId } });
      return { ...NOTHING, skipped: ids.length };
    }
    const plan = planMisfire(trigger.misfire as MisfirePolicy, held, {
      agent: trigger.agentId,
      trigger: trigger.key,
      releaseId,
      payload: JSON.parse(trigger.payload) as unknown,
      heldSince: release.heldSince,
      releasedAt: release.createdAt,
    });
    // One timestamp for the batch: the claim order then falls to the keys, which sort by due time.
    const plannedAt = new Date();
    await insertOutboxRows(
      tx,
      plan.deliveries.map((d) => ({
        id: d.key,
        kind: "trigger",
        tenantId: trigger.tenantId,
        agentId: trigger.agentId,
        destination: trigger.destination,
        contract: trigger.contract,
        payload: JSON.stringify(d.payload),
        at: plannedAt,
      })),
    );
    const marked =
      (await markReleased(tx, plan.deliveries, releaseId, plannedAt)) +
      (plan.skipped.length
        ? (
            await tx.occurrence.updateMany({
              where: { id: { in: plan.skipped }, state: "HELD" },
              data: { state: "SKIPPED", releaseId },
            })
          ).count
        : 0);
    // Another release took some of these rows meanwhile: roll back rather than plan them twice.
    if (marked !== ids.length) throw new ReleaseRaceError(next.triggerId);
    const released = ids.length - plan.skipped.length;
    await tx.release.update({
      where: { id: releaseId },
      data: { released: { increment: released }, skipped: { increment: plan.skipped.length } },
    });
    return { ...NOTHING, released, skipped: plan.skipped.length, planned: plan.deliveries.length };
  });
}

const NOTHING = { kind: "batch" as const, released: 0, skipped: 0, planned: 0, gated: [] as string[] };

async function finish(
  db: Db,
  releaseId: string,
  scope: { agentId: string } | { tenantId: string },
  gated: Set<string>,
): Promise<BatchOutcome> {
  const waiting = await db.inboxEvent.groupBy({
    by: ["agentId", "tenantId"],
    where: { ...scope, state: { in: ["HELD", "PENDING", "RELEASED"] }, agentId: { notIn: [...gated] } },
  });
  const eventAgents: string[] = [];
  for (const { agentId, tenantId } of waiting) {
    if ((await checkGate(db, agentId, tenantId)).held) continue;
    await db.inboxEvent.updateMany({ where: { agentId, state: "HELD" }, data: { state: "RELEASED", releaseId } });
    eventAgents.push(agentId);
  }
  await db.release.updateMany({
    where: { id: releaseId, state: "OPEN" },
    data: { state: "DONE", finishedAt: new Date() },
  });
  return { kind: "finished", eventAgents };
}

export class ReleaseRaceError extends Error {
  readonly code = "release_race";
}

export async function openReleaseIds(db: Db): Promise<string[]> {
  return (
    await db.release.findMany({ where: { state: "OPEN" }, select: { id: true }, orderBy: { createdAt: "asc" } })
  ).map((r) => r.id);
}
