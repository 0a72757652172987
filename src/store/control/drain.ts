import { type DrainStep, decideDrain } from "../../policy/drain";
import { NOT_RUNNING, OUTBOX_UNFINISHED, sqlList } from "../../policy/states";
import type { Db, Store } from "../connection/client";
import { type Dialect, rows, sqlText } from "../connection/sql";
import { AGENT_INDEXED, agentOutbox } from "../outbox/agent-index";
import { readControl, type StoredControl } from "./change";

/**
 * Outbound work of a scope (an agent, or a whole tenant) under way right now: a live lease on a DISPATCHED
 * row, or on a PLANNED row a worker claimed before the pause and may be about to send.
 */
function inFlightWhere(control: StoredControl, now: Date) {
  const owner = control.agentId ? { agentId: control.agentId } : { tenantId: control.tenantId };
  return { ...owner, state: { in: OUTBOX_UNFINISHED }, leaseExpiresAt: { gt: now } };
}

/** The same rows counted, as `inFlightWhere` picks them: an agent's through its index of open rows. */
const IN_FLIGHT = (d: Dialect) => `"state" IN ${sqlList(OUTBOX_UNFINISHED)} AND "leaseExpiresAt" > ${d.time}`;
const inFlightOfAgent = sqlText(
  (d) => `SELECT COUNT(*) AS "n" FROM ${agentOutbox(d)} WHERE "agentId" = ? AND ${IN_FLIGHT(d)} AND ${AGENT_INDEXED}`,
);
const inFlightOfTenant = sqlText(
  (d) => `SELECT COUNT(*) AS "n" FROM "OutboxItem" WHERE "tenantId" = ? AND ${IN_FLIGHT(d)}`,
);

async function inFlight(store: Store, control: StoredControl, now: Date): Promise<number> {
  const [row] = await store.sql.read(function* (d) {
    return control.agentId
      ? yield* rows<{ n: unknown }>(inFlightOfAgent(d), control.agentId, now)
      : yield* rows<{ n: unknown }>(inFlightOfTenant(d), control.tenantId, now);
  });
  return Number(row?.n ?? 0);
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
export async function settleDrain(store: Store, scope: string, now: Date): Promise<DrainStep> {
  return (await settleDrainOf(store, await readControl(store.db, scope), now)).step;
}

export async function settleDrainOf(store: Store, known: StoredControl | null, now: Date): Promise<SettledDrain> {
  let control = known;
  // A raised hold moves the version under us; look again rather than leave the record DRAINING.
  for (let attempt = 1; ; attempt++) {
    const settled = await settleOnce(store, control, now);
    if (settled !== "conflict") return settled;
    if (attempt >= 5 || !control) return { step: "wait", control };
    control = await readControl(store.db, control.scope);
  }
}

async function settleOnce(store: Store, control: StoredControl | null, now: Date): Promise<SettledDrain | "conflict"> {
  if (control?.state !== "DRAINING") return { step: "none", control };
  const step = decideDrain(control, control.drainDeadline, await inFlight(store, control, now), now);
  if (step !== "complete" && step !== "deadline") return { step, control };
  // The writes at a drain's end stay Prisma's: they run once per drain (on SQLite an agent's go through the
  // state index, over every agent's open rows).
  const where = inFlightWhere(control, now);
  return store.db
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
