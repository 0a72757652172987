import { agentScope, tenantScope } from "../../../policy/ids";
import type { ResumeActor } from "../../../policy/resume";
import { effectiveRole } from "../../../policy/roles";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import { standingOf } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import type { ControlView } from "./control-view";
import { controlView } from "./control-view";
import { type ReleasingOutcome, resumeAsRelease } from "./resume-release";

/** A person resuming, or the trusted scheduler acting on a pause's `until`. */
export type Resumer = { kind: "user"; user: KnownUser } | { kind: "scheduler" };

export interface ResumeCommand {
  resumer: Resumer;
  agent: KnownAgent;
  /** Resume only if the control record is still at this version (a chat Confirm names the preflight it showed). */
  expectedVersion?: number;
}

export type ResumeResult<K = Exclude<ReleasingOutcome, "stale">> = {
  kind: K;
  control: ControlView;
  releaseId?: string;
};

/** Without an expected version a resume is never `stale`. */
export async function resumeAgent(
  ctx: HandlerContext,
  command: ResumeCommand & { expectedVersion?: undefined },
): Promise<ResumeResult>;
export async function resumeAgent(ctx: HandlerContext, command: ResumeCommand): Promise<ResumeResult<ReleasingOutcome>>;
export async function resumeAgent(
  ctx: HandlerContext,
  command: ResumeCommand,
): Promise<ResumeResult<ReleasingOutcome>> {
  const { db } = ctx.store;
  const { resumer, agent } = command;
  const actor: ResumeActor =
    resumer.kind === "scheduler"
      ? { kind: "scheduler" }
      : { kind: "user", actorId: resumer.user.id, role: effectiveRole(await standingOf(db, resumer.user, agent)) };
  const actorId = resumer.kind === "user" ? resumer.user.id : null;
  const scope = agentScope(agent.id);
  const { outcome, releaseId, control, alongside } = await resumeAsRelease(ctx, {
    scope,
    tenantId: agent.tenantId,
    agentId: agent.id,
    actor,
    actorId,
    alongside: tenantScope(agent.tenantId),
    ...(command.expectedVersion !== undefined && { expectedVersion: command.expectedVersion }),
  });
  ctx.log.info({ agent: agent.id, actor: actorId ?? "scheduler", outcome }, "resume");
  const known = resumer.kind === "user" ? resumer.user : undefined;
  const view = await controlView(db, agent, control, alongside, known);
  return { kind: outcome, control: view, ...(releaseId ? { releaseId } : {}) };
}
