import { agentScope, tenantScope } from "../../policy/ids";
import { readControl } from "../../store/control";
import type { KnownAgent } from "../../store/directory";
import { countHeldWork, findOldestWaits, type HeldCounts, type OldestWaits } from "../../store/held-work";
import type { HandlerContext } from "../context";
import { type ControlView, controlView } from "./control-view";

export interface AgentStatus {
  control: ControlView;
  /** The tenant-wide record holds every agent of the tenant too. */
  tenantPaused: boolean;
  held: HeldCounts;
  oldest: OldestWaits;
}

export async function agentStatus(ctx: HandlerContext, agent: KnownAgent): Promise<AgentStatus> {
  const { db } = ctx.store;
  const [control, tenant, held, oldest] = await Promise.all([
    readControl(db, agentScope(agent.id)),
    readControl(db, tenantScope(agent.tenantId)),
    countHeldWork(db, agent.id),
    findOldestWaits(db, agent.id),
  ]);
  return {
    control: await controlView(db, agent.name, control!),
    tenantPaused: tenant !== null && tenant.state !== "RUNNING",
    held,
    oldest,
  };
}
