import type { KnownAgent } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { findTenantRun } from "./run-ids";
import { type RunView, runView } from "./run-view";

/** A run as its own agent reads it: the view, with the packet the agent wrote when it is an approval run. */
export type AgentRunView = RunView & { packet?: unknown };

/**
 * The agent's run with this id, as `GET /v1/runs/:id` shows it to the agent's key. Another agent's run, or
 * another tenant's, is null: it does not exist for this caller.
 */
export async function agentRunView(ctx: HandlerContext, agent: KnownAgent, id: string): Promise<AgentRunView | null> {
  const { db } = ctx.store;
  const run = await findTenantRun(db, agent.tenantId, id);
  if (!run || run.agentId !== agent.id) return null;
  const view = await runView(ctx.store, run);
  return view.kind === "approval" ? { ...view, packet: JSON.parse(run.packet) } : view;
}

/**
 * The stored key and approval state of the agent's run, and nothing more: what a waiting caller reads each time
 * it wakes (one primary-key read; the full view is built once, at the end).
 */
export async function agentRunState(
  ctx: HandlerContext,
  agent: KnownAgent,
  id: string,
): Promise<{ key: string; state: string } | null> {
  const run = await findTenantRun(ctx.store.db, agent.tenantId, id);
  return run && run.agentId === agent.id ? { key: run.id, state: run.state } : null;
}
