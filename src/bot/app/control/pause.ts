import { DEFAULT_DRAIN_TIMEOUT_MS } from "../../../policy/drain";
import { agentScope } from "../../../policy/ids";
import type { PauseOutcome } from "../../../policy/pause";
import { decidePause } from "../../../policy/pause";
import { effectiveRole } from "../../../policy/roles";
import { changeControl, type NextControl, readControl } from "../../../store/control/change";
import { settleDrain } from "../../../store/control/drain";
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

export async function pauseAgent(ctx: HandlerContext, command: PauseCommand): Promise<PauseResult> {
  const { db } = ctx.store;
  const role = effectiveRole(await standingOf(db, command.user, command.agent));
  const scope = agentScope(command.agent.id);
  const outcome = await changeControl(db, scope, (current) => {
    const now = ctx.now();
    const decision = decidePause(
      current,
      { actorId: command.user.id, role, reason: command.reason, until: command.until },
      now,
    );
    return {
      next: decision.outcome === "kept" ? null : withDrainDeadline(decision, now, ctx.drainTimeoutMs),
      result: decision.outcome,
      audit: {
        action: "pause",
        actorId: command.user.id,
        outcome: decision.outcome,
        reason: command.reason,
        holdLevel: role,
      },
    };
  });
  // Nothing in flight: the pause completes at once and the answer already reads PAUSED.
  if (outcome !== "kept") await settleDrain(db, scope, ctx.now());
  if (outcome !== "kept") ctx.events.emit("control.changed", scope);
  const control = await readControl(db, scope);
  ctx.log.info({ agent: command.agent.id, actor: command.user.id, outcome, holdLevel: control?.holdLevel }, "pause");
  return { kind: outcome, control: await controlView(db, command.agent, control!) };
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
