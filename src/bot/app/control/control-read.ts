import { RUNNING_CONTROL } from "../../../policy/control";
import { agentScope, tenantScope } from "../../../policy/ids";
import { readControl, type StoredControl } from "../../../store/control/change";
import type { KnownAgent } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { type ControlView, controlView, type TenantView, tenantView } from "./control-view";

/** An agent's control record as the API shows it (every agent has one from the directory sync on). */
export async function agentControlView(ctx: HandlerContext, agent: KnownAgent): Promise<ControlView> {
  const { db } = ctx.store;
  return controlView(db, agent, (await readControl(db, agentScope(agent.id)))!);
}

/** The tenant-wide record; a tenant never paused has none yet, and reads as running. */
/** The tenant's control as the API shows it, from a record the caller already has (after a change). */
export const tenantControlViewOf = (
  ctx: HandlerContext,
  tenantId: string,
  control: StoredControl,
): Promise<TenantView> => tenantView(ctx.store.db, tenantId, control);

export async function tenantControlView(ctx: HandlerContext, tenantId: string): Promise<TenantView> {
  const scope = tenantScope(tenantId);
  const control = (await readControl(ctx.store.db, scope)) ?? {
    ...RUNNING_CONTROL,
    scope,
    tenantId,
    agentId: null,
    version: 0,
    drainDeadline: null,
  };
  return tenantView(ctx.store.db, tenantId, control);
}
