import { NOT_RUNNING } from "../../policy/control";
import { type DrainStep, decideDrain } from "../../policy/drain";
import type { Db } from "../connection/client";
import { readControl, type StoredControl } from "./change";

/**
 * Outbound work of a scope (an agent, or a whole tenant) under way right now: a live lease on a DISPATCHED
 * row, or on a PLANNED row a worker claimed before the pause and may be about to send.
 */
function inFlightWhere(control: StoredControl, now: Date) {
  const owner = control.agentId ? { agentId: control.agentId } : { tenantId: control.tenantId };
  return { ...owner, state: { in: ["DISPATCHED", "PLANNED"] }, leaseExpiresAt: { gt: now } };
}

/** Where a drain stands, and the record after it (PAUSED when it completed). */
export interface SettledDrain {
  step: DrainStep;
  control: StoredControl | null;
}

/**
 * Moves a DRAINING record on: to PAUSED once nothing is in flight, or at the drain deadline after moving
 * what is still in flight to NEEDS_REVIEW (its outcome will never be known to us: the lease is dropped, so
 * a late acknowledgement is ignored). Conditional on the record's version: a resume or a raised hold in
 * between wins, and this does nothing. A caller that has just written the record passes it, and nothing is
 * read again unless another writer got in between.
 */
export async function settleDrain(db: Db, scope: string, now: Date): Promise<DrainStep> {
  return (await settleDrainOf(db, await readControl(db, scope), now)).step;
}

export async function settleDrainOf(db: Db, known: StoredControl | null, now: Date): Promise<SettledDrain> {
  let control = known;
  // A raised hold moves the version under us; look again rather than leave the record DRAINING.
  for (let attempt = 1; ; attempt++) {
    const settled = await settleOnce(db, control, now);
    if (settled !== "conflict") return settled;
    if (attempt >= 5 || !control) return { step: "wait", control };
    control = await readControl(db, control.scope);
  }
}

async function settleOnce(db: Db, control: StoredControl | null, now: Date): Promise<SettledDrain | "conflict"> {
  if (control?.state !== "DRAINING") return { step: "none", control };
  const where = inFlightWhere(control, now);
  const inFlight = await db.outboxItem.count({ where });
  const step = decideDrain(control, control.drainDeadline, inFlight, now);
  if (step !== "complete" && step !== "deadline") return { step, control };
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
      const paused = { state: "PAUSED" as const, version: control.version + 1 };
      const done = await tx.control.updateMany({
        where: { scope: control.scope, version: control.version, state: "DRAINING" },
        data: paused,
      });
      if (done.count !== 1) throw new DrainConflict();
      return { step, control: { ...control, ...paused } };
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
