import { agentScope, tenantScope } from "../../../policy/ids";
import { readControl } from "../../../store/control/change";
import type { KnownAgent } from "../../../store/directory/directory";
import { countHeldWork, findOldestWaits, type HeldCounts, type OldestWaits } from "../../../store/held/counts";
import type { HandlerContext } from "../context";
import { heldAsSeen } from "../held/held-as-seen";
import { type ControlView, controlView, type TenantView, tenantView } from "./control-view";

export interface AgentStatus {
  control: ControlView;
  /** The tenant-wide record holds every agent of the tenant too. */
  tenantPaused: boolean;
  /** The tenant-wide record, when it holds the agent (`control.effective.by` is then `tenant`). */
  tenantHold: TenantView | null;
  held: HeldCounts;
  oldest: OldestWaits;
}

export async function agentStatus(ctx: HandlerContext, agent: KnownAgent): Promise<AgentStatus> {
  const { db } = ctx.store;
  const [control, tenant, held, oldest] = await Promise.all([
    readControl(db, agentScope(agent.id)),
    readControl(db, tenantScope(agent.tenantId)),
    countHeldWork(ctx.store, agent.id),
    findOldestWaits(ctx.store, agent.id),
  ]);
  const view = await controlView(db, agent, control!, tenant);
  return {
    control: view,
    tenantPaused: view.effective.by === "tenant",
    tenantHold: view.effective.by === "tenant" && tenant ? await tenantView(db, agent.tenantId, tenant) : null,
    held: heldAsSeen(held, view.effective.state !== "RUNNING"),
    oldest,
  };
}
