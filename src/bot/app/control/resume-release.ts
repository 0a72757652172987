import type { ResumeActor, ResumeRefusal } from "../../../policy/resume";
import { decideResume } from "../../../policy/resume";
import type { HeldAction } from "../../../policy/resume-checklist";
import type { AuditEntry, StoredControl } from "../../../store/control/change";
import { changeControl } from "../../../store/control/change";
import { openRelease } from "../../../store/held/releases";
import { turnRetriesOff } from "../../../store/held/resume-ledger";
import type { HandlerContext } from "../context";

export interface ReleasingResume {
  scope: string;
  tenantId: string;
  /** null for a tenant-wide resume. */
  agentId: string | null;
  actor: ResumeActor;
  actorId: string | null;
  /** A refusal found before the rules run (a non-admin resuming a tenant). */
  refuse?: "forbidden";
  /**
   * The control record's version the resumer saw (a chat preflight): any other version is `stale`, checked in
   * the same transaction as the write, so a used or outdated Confirm never resumes.
   */
  expectedVersion?: number;
  /** Another record to read with the resumed one (the agent's tenant), returned as `alongside`. */
  alongside?: string;
  /** Written as the resume's audit reason: the checklist, and an override's reason. */
  auditReason?: string;
  /** Held actions whose destination can no longer deduplicate them: released with retries off. */
  retriesOff?: HeldAction[];
}

/** What a resume decided, and the records as the transaction left them. */
export interface ReleasingAnswer<O> {
  outcome: O;
  releaseId: string | undefined;
  control: StoredControl;
  alongside: StoredControl | null;
}

export type ReleasingOutcome = "resumed" | ResumeRefusal | "stale";

/**
 * Resume is a release, not a flip (design.md section 10): the control row and the release record commit in
 * one transaction, then the release job is announced. Shared by the agent and the tenant resume.
 */
export async function resumeAsRelease(
  ctx: HandlerContext,
  resume: ReleasingResume & { expectedVersion?: undefined },
): Promise<ReleasingAnswer<Exclude<ReleasingOutcome, "stale">>>;
export async function resumeAsRelease(
  ctx: HandlerContext,
  resume: ReleasingResume,
): Promise<ReleasingAnswer<ReleasingOutcome>>;
export async function resumeAsRelease(
  ctx: HandlerContext,
  resume: ReleasingResume,
): Promise<ReleasingAnswer<ReleasingOutcome>> {
  let releaseId: string | undefined;
  const audit = (outcome: string, holdLevel?: string): AuditEntry => ({
    action: "resume",
    actorId: resume.actorId,
    outcome,
    ...(holdLevel ? { holdLevel } : {}),
    ...(resume.auditReason ? { reason: resume.auditReason } : {}),
  });
  const changed = await changeControl<ReleasingOutcome>(
    ctx.store.db,
    resume.scope,
    (current) => {
      releaseId = undefined; // a retried transaction starts over
      if (resume.refuse) return { next: null, result: resume.refuse, audit: audit(resume.refuse) };
      if (resume.expectedVersion !== undefined && current.version !== resume.expectedVersion) {
        return { next: null, result: "stale", audit: audit("stale", current.holdLevel) };
      }
      const decision = decideResume(current, resume.actor);
      return {
        next: decision.outcome === "resumed" ? decision.next : null,
        result: decision.outcome,
        audit: audit(decision.outcome, current.holdLevel),
      };
    },
    {
      ...(resume.alongside ? { alongside: resume.alongside } : {}),
      async alsoInTransaction(tx, result, before) {
        if (result !== "resumed") return;
        if (resume.retriesOff?.length) await turnRetriesOff(tx, resume.retriesOff);
        releaseId = await openRelease(tx, {
          tenantId: resume.tenantId,
          agentId: resume.agentId,
          requestedBy: resume.actorId ?? "scheduler",
          heldSince: before.setAt,
          now: ctx.now(),
        });
      },
    },
  );
  const outcome = changed.result;
  if (releaseId) {
    ctx.events.emit("control.changed", resume.scope);
    ctx.metrics?.releaseStarted();
    ctx.events.emit("release.opened", releaseId);
  }
  return { outcome, releaseId, control: changed.control, alongside: changed.alongside };
}
