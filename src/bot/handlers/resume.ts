import type { ResumeActor, ResumeRefusal } from "../../policy/resume";
import { decideResume } from "../../policy/resume";
import { effectiveRole } from "../../policy/roles";
import { changeControl, readControl } from "../../store/control";
import type { KnownAgent, KnownUser } from "../../store/directory";
import { agentScope, standingOf } from "../../store/directory";
import { openRelease } from "../../store/releases";
import type { HandlerContext } from "../context";
import type { ControlView } from "./control-view";
import { controlView } from "./control-view";

/** A person resuming, or the trusted scheduler acting on a pause's `until`. */
export type Resumer = { kind: "user"; user: KnownUser } | { kind: "scheduler" };

export interface ResumeCommand {
  resumer: Resumer;
  agent: KnownAgent;
}

export type ResumeResult = { kind: "resumed" | ResumeRefusal; control: ControlView; releaseId?: string };

export async function resumeAgent(ctx: HandlerContext, command: ResumeCommand): Promise<ResumeResult> {
  const { db } = ctx.store;
  const { resumer, agent } = command;
  const actor: ResumeActor =
    resumer.kind === "scheduler"
      ? { kind: "scheduler" }
      : { kind: "user", actorId: resumer.user.id, role: effectiveRole(await standingOf(db, resumer.user, agent)) };
  const actorId = resumer.kind === "user" ? resumer.user.id : null;
  const scope = agentScope(agent.id);
  let releaseId: string | undefined;
  const outcome = await changeControl(
    db,
    scope,
    (current) => {
      releaseId = undefined; // a retried transaction starts over
      const decision = decideResume(current, actor);
      return {
        next: decision.outcome === "resumed" ? decision.next : null,
        result: decision.outcome,
        audit: { action: "resume", actorId, outcome: decision.outcome, holdLevel: current.holdLevel },
      };
    },
    undefined,
    // Resume is a release, not a flip: the release record commits with the control row (design.md 10).
    async (tx, result, before) => {
      if (result !== "resumed") return;
      releaseId = await openRelease(tx, {
        tenantId: agent.tenantId,
        agentId: agent.id,
        requestedBy: actorId ?? "scheduler",
        heldSince: before.setAt,
        now: ctx.now(),
      });
    },
  );
  if (releaseId) {
    ctx.events.emit("control.changed", scope);
    ctx.events.emit("release.opened", releaseId);
  }
  const control = await readControl(db, scope);
  ctx.log.info({ agent: agent.id, actor: actorId ?? "scheduler", outcome }, "resume");
  return { kind: outcome, control: await controlView(db, agent.name, control!), ...(releaseId ? { releaseId } : {}) };
}
