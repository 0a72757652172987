import { runKey } from "../../../policy/ids";
import { findRun, type RunRecord } from "../../../store/approvals/runs";
import type { Db } from "../../../store/connection/client";
import type { HandlerContext } from "../context";

/**
 * The tenant's run with this id, or null. The scoped key is read first; a run stored before ids were
 * scoped (its bare id) is found only when it belongs to the same tenant, so no other tenant's run is ever
 * returned or revealed.
 */
export async function findTenantRun(db: Db, tenantId: string, id: string): Promise<RunRecord | null> {
  const scoped = await findRun(db, runKey(tenantId, id));
  if (scoped) return scoped.tenantId === tenantId ? scoped : null;
  const legacy = await findRun(db, id);
  return legacy?.tenantId === tenantId ? legacy : null;
}

/**
 * How long a run's current version has waited for a decision: since it was submitted (creating the run or
 * saving a new packet writes `updatedAt`; nothing else touches a waiting run).
 */
export const waitedSeconds = (run: RunRecord, now: Date): number =>
  Math.max(0, (now.getTime() - run.updatedAt.getTime()) / 1000);

/** The stored key for a tenant's run id: the scoped key, or the bare id of a run stored before scoping. */
export async function storedRunId(ctx: Pick<HandlerContext, "store">, tenantId: string, id: string): Promise<string> {
  return (await findTenantRun(ctx.store.db, tenantId, id))?.id ?? runKey(tenantId, id);
}
