import crypto from "node:crypto";
import { DEPLOYMENT_SCOPE, tenantScope } from "../../policy/ids";
import { WINDOW_ACTIVE, type WindowScope, type WindowState } from "../../policy/maintenance";
import type { Db, Tx } from "../connection/client";
import { revokeAgentTokens } from "../directory/agent-tokens";
import { openRelease } from "../held/releases";

/** The persisted record of one maintenance window (the shape; `endedAt` once it was let go). */
export interface MaintenanceRecord {
  id: string;
  scope: WindowScope;
  instance: string | null;
  state: WindowState;
  reason: string | null;
  startedAt: Date;
  acceptingWork: boolean;
  inFlight: number;
  drainDeadline: Date | null;
  by: string | null;
  endedAt: Date | null;
}

const recordOf = (row: Record<keyof MaintenanceRecord, unknown>): MaintenanceRecord =>
  row as unknown as MaintenanceRecord;

export interface AuditLine {
  maintenanceId?: string | null;
  instance?: string | null;
  action: "transition" | "classified" | "unclean";
  subject?: string | null;
  fromState?: string | null;
  toState?: string | null;
  note?: string | null;
  by?: string | null;
  at: Date;
}

export async function auditMaintenance(db: Db | Tx, lines: AuditLine[]): Promise<void> {
  if (lines.length) await db.maintenanceAudit.createMany({ data: lines });
}

export interface NewWindow {
  scope: WindowScope;
  instance: string | null;
  reason: string | null;
  by: string | null;
  drainDeadline: Date;
  acceptingWork: boolean;
  now: Date;
}

/**
 * Opens a window, DRAINING, audited. A deployment-wide one also writes the deployment's hold (a control
 * record that every gate reads: ticks due meanwhile are recorded HELD, like a pause) in the same
 * transaction; at most one deployment-wide window is open at a time (the open one is returned instead).
 */
export async function openWindow(db: Db, w: NewWindow): Promise<{ record: MaintenanceRecord; opened: boolean }> {
  return db.$transaction(async (tx) => {
    if (w.scope === "deployment") {
      const open = await tx.maintenance.findFirst({ where: { scope: "deployment", state: { in: WINDOW_ACTIVE } } });
      if (open) return { record: recordOf(open), opened: false };
      const hold = { state: "PAUSED", holdLevel: "admin", reason: w.reason, setBy: w.by, setAt: w.now, until: null };
      await tx.control.upsert({
        where: { scope: DEPLOYMENT_SCOPE },
        create: { scope: DEPLOYMENT_SCOPE, tenantId: "*", ...hold },
        update: { ...hold, version: { increment: 1 } },
      });
      // A deployment-wide hold is a pause of every agent: their tokens end with it (design.md section 12).
      await revokeAgentTokens(tx, "all", w.now);
    }
    const row = await tx.maintenance.create({
      data: { id: `mw_${crypto.randomUUID().slice(0, 12)}`, ...withoutNow(w), state: "DRAINING", startedAt: w.now },
    });
    await auditMaintenance(tx, [
      {
        maintenanceId: row.id,
        instance: w.instance,
        action: "transition",
        fromState: "RUNNING",
        toState: "DRAINING",
        note: w.reason,
        by: w.by,
        at: w.now,
      },
    ]);
    return { record: recordOf(row), opened: true };
  });
}

const withoutNow = ({ now: _now, ...rest }: NewWindow) => rest;

/** Moves a window on (`from` -> `to`), audited; false when it was not in `from` any more (another won). */
export async function moveWindow(
  db: Db,
  id: string,
  from: WindowState,
  to: WindowState,
  facts: { acceptingWork?: boolean; inFlight?: number; by?: string | null; note?: string | null; now: Date },
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const written = await tx.maintenance.updateMany({
      where: { id, state: from },
      data: {
        state: to,
        ...(facts.acceptingWork === undefined ? {} : { acceptingWork: facts.acceptingWork }),
        ...(facts.inFlight === undefined ? {} : { inFlight: facts.inFlight }),
        ...(to === "ENDED" || to === "STOPPED" ? { endedAt: facts.now } : {}),
      },
    });
    if (written.count !== 1) return false;
    const row = await tx.maintenance.findUnique({ where: { id }, select: { instance: true } });
    await auditMaintenance(tx, [
      {
        maintenanceId: id,
        instance: row?.instance ?? null,
        action: "transition",
        fromState: from,
        toState: to,
        note: facts.note ?? null,
        by: facts.by ?? null,
        at: facts.now,
      },
    ]);
    return true;
  });
}

/** Updates the facts of a window in force without a transition (what is in flight, whether work is taken). */
export async function updateWindowFacts(db: Db, id: string, facts: { acceptingWork: boolean; inFlight: number }) {
  await db.maintenance.updateMany({ where: { id, state: { in: WINDOW_ACTIVE } }, data: facts });
}

/** The windows in force that apply to `instance`: its own, and a deployment-wide one. */
export async function windowsFor(db: Db, instance: string): Promise<MaintenanceRecord[]> {
  const rows = await db.maintenance.findMany({
    where: { state: { in: WINDOW_ACTIVE }, OR: [{ scope: "deployment" }, { instance }] },
    orderBy: { startedAt: "asc" },
  });
  return rows.map(recordOf);
}

export async function findWindow(db: Db, id: string): Promise<MaintenanceRecord | null> {
  const row = await db.maintenance.findUnique({ where: { id } });
  return row ? recordOf(row) : null;
}

/** Windows in force, for /status and the console. */
export async function activeWindows(db: Db): Promise<MaintenanceRecord[]> {
  const rows = await db.maintenance.findMany({
    where: { state: { in: WINDOW_ACTIVE } },
    orderBy: { startedAt: "asc" },
  });
  return rows.map(recordOf);
}

/**
 * Ends a window. A deployment-wide one lifts the deployment's hold and opens one release per tenant (the
 * same release machinery as a resume, requested by `maintenance:<id>`), all in one transaction, so what was
 * held during the window goes out once. Returns the releases opened; null when the window was not in force.
 */
export async function endWindow(
  db: Db,
  id: string,
  by: string | null,
  now: Date,
): Promise<{ record: MaintenanceRecord; releaseIds: string[] } | null> {
  return db.$transaction(async (tx) => {
    const row = await tx.maintenance.findUnique({ where: { id } });
    if (!row || !WINDOW_ACTIVE.includes(row.state as WindowState)) return null;
    await tx.maintenance.update({ where: { id }, data: { state: "ENDED", endedAt: now } });
    await auditMaintenance(tx, [
      {
        maintenanceId: id,
        instance: row.instance,
        action: "transition",
        fromState: row.state,
        toState: "ENDED",
        by,
        at: now,
      },
    ]);
    const releaseIds: string[] = [];
    if (row.scope === "deployment") {
      await tx.control.updateMany({
        where: { scope: DEPLOYMENT_SCOPE },
        data: { state: "RUNNING", holdLevel: "none", reason: null, setBy: by, setAt: now, version: { increment: 1 } },
      });
      for (const tenant of await tx.tenant.findMany({ select: { id: true }, orderBy: { id: "asc" } })) {
        releaseIds.push(await releaseAfterWindow(tx, tenant.id, id, row.startedAt, by, now));
      }
    }
    return { record: recordOf({ ...row, state: "ENDED", endedAt: now }), releaseIds };
  });
}

/** One tenant's release at the end of a window, with its own audit reason. */
async function releaseAfterWindow(tx: Tx, tenantId: string, id: string, since: Date, by: string | null, now: Date) {
  const releaseId = await openRelease(tx, {
    tenantId,
    agentId: null,
    requestedBy: `maintenance:${id}`,
    heldSince: since,
    now,
  });
  await tx.controlAudit.create({
    data: {
      scope: tenantScope(tenantId),
      tenantId,
      agentId: null,
      action: "resume",
      actorId: by,
      outcome: "released",
      reason: `maintenance window ${id} ended`,
    },
  });
  return releaseId;
}
