import { DEFAULT_DRAIN_TIMEOUT_MS } from "../../../policy/drain";
import { agentScope, tenantScope } from "../../../policy/ids";
import type { PauseOutcome } from "../../../policy/pause";
import { decidePause } from "../../../policy/pause";
import { effectiveRole } from "../../../policy/roles";
import { changeControl, type NextControl } from "../../../store/control/change";
import { settleDrainOf } from "../../../store/control/drain";
import { revokeAgentTokens } from "../../../store/directory/agent-tokens";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import { standingOf } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import type { ControlView } from "./control-view";
import { controlView } from "./control-view";

export interface PauseCommand {
  user: KnownUser;
  agent: KnownAgent;
  reason: string;
  until: Date | null;
}

export type PauseResult = { kind: PauseOutcome; control: ControlView };

/**
 * The agent's record is read once, with its tenant's, in the change's transaction; the written record is
 * what the drain settles and what the answer shows.
 */
export async function pauseAgent(ctx: HandlerContext, command: PauseCommand): Promise<PauseResult> {
  const { db } = ctx.store;
  const { user, agent } = command;
  const role = effectiveRole(await standingOf(db, user, agent));
  const scope = agentScope(agent.id);
  const now = ctx.now();
  const changed = await changeControl(
    db,
    scope,
    (current) => {
      const decision = decidePause(
        current,
        { actorId: user.id, role, reason: command.reason, until: command.until },
        now,
      );
      return {
        next: decision.outcome === "kept" ? null : withDrainDeadline(decision, now, ctx.drainTimeoutMs),
        result: decision.outcome,
        audit: {
          action: "pause",
          actorId: user.id,
          outcome: decision.outcome,
          reason: command.reason,
          holdLevel: role,
        },
      };
    },
    {
      alongside: tenantScope(agent.tenantId),
      // Every pause ends the agent's outstanding tokens in its own transaction: none outlives it on any process.
      alsoInTransaction: (tx) => revokeAgentTokens(tx, { agentId: agent.id }, now).then(() => undefined),
    },
  );
  const outcome = changed.result;
  let control = changed.control;
  // Nothing in flight: the pause completes at once and the answer already reads PAUSED.
  if (outcome !== "kept") control = (await settleDrainOf(ctx.store, control, ctx.now())).control ?? control;
  if (outcome !== "kept") ctx.events.emit("control.changed", scope);
  ctx.log.info({ agent: agent.id, actor: user.id, outcome, holdLevel: control.holdLevel }, "pause");
  const known = { id: user.id, name: user.name };
  return { kind: outcome, control: await controlView(db, agent, control, changed.alongside, known) };
}

/** A pause that starts a drain carries its deadline in the same write. */
export function withDrainDeadline(
  decision: ReturnType<typeof decidePause>,
  now: Date,
  drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS,
): NextControl {
  if (decision.outcome !== "paused") return decision.next;
  return { ...decision.next, drainDeadline: new Date(now.getTime() + drainTimeoutMs) };
}
