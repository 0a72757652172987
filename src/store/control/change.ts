import type { ControlRecord } from "../../policy/control";
import type { Db, Tx } from "../connection/client";
import { controlOf, type StoredControl } from "./records";

export type { StoredControl } from "./records";

/** One record by scope, inside a Prisma transaction or not. */
export async function readControl(db: Db | Tx, scope: string): Promise<StoredControl | null> {
  const row = await db.control.findUnique({ where: { scope } });
  return row ? controlOf(row) : null;
}

/** Several records in one statement (an agent's and its tenant's), by scope. */
export async function readControls(db: Db | Tx, scopes: string[]): Promise<Map<string, StoredControl>> {
  const rows = await db.control.findMany({ where: { scope: { in: scopes } } });
  return new Map(rows.map((row) => [row.scope, controlOf(row)]));
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

export interface ChangeOptions<R> {
  /** Tries on a fresh record after a concurrent writer won (default 5). */
  attempts?: number;
  /** Another record read in the same statement as the changed one (an agent's tenant), returned as it was. */
  alongside?: string;
  /** Further writes that must commit with the change (a resume's release record). */
  alsoInTransaction?: (tx: Tx, result: R, before: StoredControl) => Promise<void>;
}

/** What a change decided, the record as it stands after it (written or kept), and the `alongside` record. */
export interface ChangedControl<R> {
  result: R;
  control: StoredControl;
  alongside: StoredControl | null;
}

/**
 * Reads the record, asks `change` what to do, writes the next record with a version check and appends the
 * audit row, all in one transaction. A concurrent writer makes the version check fail; the change is then
 * retried on the fresh record, so no attempt is lost and none overwrites another. The record it returns is
 * the one it wrote, so the caller does not read it again.
 */
export async function changeControl<R>(
  db: Db,
  scope: string,
  change: ControlChange<R>,
  options: ChangeOptions<R> = {},
): Promise<ChangedControl<R>> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction((tx) => changeOnce(tx, scope, change, options));
    } catch (error) {
      if (!(error instanceof ControlConflictError) || attempt >= attempts) throw error;
    }
  }
}

async function changeOnce<R>(
  tx: Tx,
  scope: string,
  change: ControlChange<R>,
  options: ChangeOptions<R>,
): Promise<ChangedControl<R>> {
  const found = await readControls(tx, options.alongside ? [scope, options.alongside] : [scope]);
  const current = found.get(scope);
  if (!current) throw new Error(`no control record for ${scope}`);
  const { next, result, audit } = change(current);
  let control = current;
  if (next) {
    const data = {
      state: next.state,
      holdLevel: next.holdLevel,
      reason: next.reason,
      setBy: next.setBy,
      setAt: next.setAt,
      until: next.until,
      ...(next.drainDeadline === undefined ? {} : { drainDeadline: next.drainDeadline }),
      version: current.version + 1,
    };
    const written = await tx.control.updateMany({ where: { scope, version: current.version }, data });
    if (written.count !== 1) throw new ControlConflictError(scope);
    control = { ...current, ...data };
  }
  if (options.alsoInTransaction) await options.alsoInTransaction(tx, result, current);
  await tx.controlAudit.create({
    data: {
      scope,
      tenantId: current.tenantId,
      agentId: current.agentId,
      action: audit.action,
      actorId: audit.actorId,
      outcome: audit.outcome,
      reason: audit.reason ?? null,
      holdLevel: audit.holdLevel ?? null,
    },
  });
  return { result, control, alongside: options.alongside ? (found.get(options.alongside) ?? null) : null };
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
