import { type AgentRunView, agentRunState, agentRunView } from "../../app/approvals/agent-run";
import type { ToolCall } from "./tool";

/** MCP clients give up on a call at about 60 s; a wait answers well before that. */
export const MAX_WAIT_SECONDS = 50;

/**
 * Waits until the agent's run is no longer waiting, or `timeoutMs` has passed, or the call is aborted; then
 * answers the run as `get_approval` does (null: no such run of this agent). Between reads it holds nothing but
 * a timer: no database connection, no transaction. The deadline is the wall clock of this process, since a
 * call's duration is a fact about this request, not about the service clock the rules use.
 */
export async function waitForDecision(call: ToolCall, id: string, timeoutMs: number): Promise<AgentRunView | null> {
  const { ctx, agent, signal } = call;
  const deadline = Date.now() + timeoutMs;
  let run = await agentRunState(ctx, agent, id);
  while (run?.state === "waiting" && !signal.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    await call.wakers.next(run.key, Math.min(left, call.pollMs), signal);
    run = await agentRunState(ctx, agent, id);
  }
  return run && agentRunView(ctx, agent, id);
}
