import type { ControlRecord } from "../../policy/control";
import type { Db, Tx } from "../connection/client";
import { controlOf, type StoredControl } from "./records";

export type { StoredControl } from "./records";

/** One record by scope, inside a Prisma transaction or not. */
export async function readControl(db: Db | Tx, scope: string): Promise<StoredControl | null> {
  const row = await db.control.findUnique({ where: { scope } });
  return row ? controlOf(row) : null;
}

export interface AuditEntry {
  action: "pause" | "resume";
  actorId: string | null;
  outcome: string;
  reason?: string | null;
  holdLevel?: string | null;
}

/** The record a change writes; a pause that drains names its deadline (left as it is when absent). */
export type NextControl = ControlRecord & { drainDeadline?: Date | null };

export type ControlChange<R> = (current: StoredControl) => { next: NextControl | null; result: R; audit: AuditEntry };

export class ControlConflictError extends Error {
  readonly code = "control_conflict";
}

/**
 * Reads the record, asks `change` what to do, writes the next record with a version check and appends the
 * audit row, all in one transaction. A concurrent writer makes the version check fail; the change is then
 * retried on the fresh record, so no attempt is lost and none overwrites another.
 */
export async function changeControl<R>(
  db: Db,
  scope: string,
  change: ControlChange<R>,
  attempts = 5,
  /** Further writes that must commit with the change (a resume's release record). */
  alsoInTransaction?: (tx: Tx, result: R, before: StoredControl) => Promise<void>,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(async (tx) => {
        const current = await readControl(tx, scope);
        if (!current) throw new Error(`no control record for ${scope}`);
        const { next, result, audit } = change(current);
        if (next) {
          const written = await tx.control.updateMany({
            where: { scope, version: current.version },
            data: {
              state: next.state,
              holdLevel: next.holdLevel,
              reason: next.reason,
              setBy: next.setBy,
              setAt: next.setAt,
              until: next.until,
              ...(next.drainDeadline === undefined ? {} : { drainDeadline: next.drainDeadline }),
              version: current.version + 1,
            },
          });
          if (written.count !== 1) throw new ControlConflictError(scope);
        }
        if (alsoInTransaction) await alsoInTransaction(tx, result, current);
        const row = await tx.control.findUniqueOrThrow({ where: { scope } });
        await tx.controlAudit.create({
          data: {
            scope,
            tenantId: row.tenantId,
            agentId: row.agentId,
            action: audit.action,
            actorId: audit.actorId,
            outcome: audit.outcome,
            reason: audit.reason ?? null,
            holdLevel: audit.holdLevel ?? null,
          },
        });
        return result;
      });
    } catch (error) {
      if (!(error instanceof ControlConflictError) || attempt >= attempts) throw error;
    }
  }
}

/** A refused attempt changes nothing but is still written down. */
export async function recordRefusal(db: Db, scope: string, audit: AuditEntry): Promise<void> {
  const row = await db.control.findUnique({ where: { scope }, select: { tenantId: true, agentId: true } });
  if (!row) return;
  await db.controlAudit.create({
    data: { scope, tenantId: row.tenantId, agentId: row.agentId, ...audit, reason: audit.reason ?? null },
  });
}

export async function listAudit(db: Db, scope: string) {
  return db.controlAudit.findMany({ where: { scope }, orderBy: { id: "asc" } });
}
