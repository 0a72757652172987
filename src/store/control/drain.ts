import { type DrainStep, decideDrain } from "../../policy/drain";
import { NOT_RUNNING, OUTBOX_UNFINISHED } from "../../policy/states";
import type { Db } from "../connection/client";
import { readControl } from "./change";

/**
 * Outbound work of a scope (an agent, or a whole tenant) under way right now: a live lease on a DISPATCHED
 * row, or on a PLANNED row a worker claimed before the pause and may be about to send.
 */
async function inFlightWhere(db: Db, scope: string, now: Date) {
  const control = await db.control.findUnique({ where: { scope }, select: { agentId: true, tenantId: true } });
  const owner = control?.agentId ? { agentId: control.agentId } : { tenantId: control?.tenantId ?? "" };
  return { ...owner, state: { in: OUTBOX_UNFINISHED }, leaseExpiresAt: { gt: now } };
}

/**
 * Moves a DRAINING record on: to PAUSED once nothing is in flight, or at the drain deadline after moving
 * what is still in flight to NEEDS_REVIEW (its outcome will never be known to us: the lease is dropped, so
 * a late acknowledgement is ignored). Conditional on the record's version: a resume or a raised hold in
 * between wins, and this does nothing.
 */
export async function settleDrain(db: Db, scope: string, now: Date): Promise<DrainStep> {
  // A raised hold moves the version under us; look again rather than leave the record DRAINING.
  for (let attempt = 1; ; attempt++) {
    const step = await settleOnce(db, scope, now);
    if (step !== "conflict") return step;
    if (attempt >= 5) return "wait";
  }
}

async function settleOnce(db: Db, scope: string, now: Date): Promise<DrainStep | "conflict"> {
  const control = await readControl(db, scope);
  if (control?.state !== "DRAINING") return "none";
  const where = await inFlightWhere(db, scope, now);
  const inFlight = await db.outboxItem.count({ where });
  const deadline = (await db.control.findUnique({ where: { scope }, select: { drainDeadline: true } }))?.drainDeadline;
  const step = decideDrain(control, deadline ?? null, inFlight, now);
  if (step !== "complete" && step !== "deadline") return step;
  return db
    .$transaction(async (tx) => {
      if (step === "deadline") {
        // A claimed but unsent item loses its lease, so its worker cannot dispatch it any more.
        const notSent = { ...where, state: "PLANNED" };
        await tx.outboxItem.updateMany({ where: notSent, data: { leaseToken: null, leaseExpiresAt: null } });
        await tx.outboxItem.updateMany({
          where: { ...where, state: "DISPATCHED" },
          data: {
            state: "NEEDS_REVIEW",
            lastResult: `still in flight at the drain deadline ${now.toISOString()}; outcome unknown`,
            leaseToken: null,
            leaseExpiresAt: null,
          },
        });
      }
      const done = await tx.control.updateMany({
        where: { scope, version: control.version, state: "DRAINING" },
        data: { state: "PAUSED", version: control.version + 1 },
      });
      if (done.count !== 1) throw new DrainConflict();
      return step;
    })
    .catch((error: unknown) => {
      if (error instanceof DrainConflict) return "conflict" as const;
      throw error;
    });
}

export async function drainingScopes(db: Db): Promise<Array<{ scope: string; drainDeadline: Date | null }>> {
  return db.control.findMany({ where: { state: "DRAINING" }, select: { scope: true, drainDeadline: true } });
}

/** Paused scopes with an automatic resume (a pause's `until`). */
export async function scopesWithUntil(db: Db): Promise<Array<{ scope: string; until: Date }>> {
  const rows = await db.control.findMany({ where: { state: { in: NOT_RUNNING }, until: { not: null } } });
  return rows.map((r) => ({ scope: r.scope, until: r.until! }));
}

class DrainConflict extends Error {}
