import { agentScope, tenantScope } from "../../../policy/ids";
import { forecastRelease, type ReleaseForecast } from "../../../policy/misfire";
import type { ResumeRefusal } from "../../../policy/resume";
import { decideResume } from "../../../policy/resume";
import type { CheckItem } from "../../../policy/resume-checklist";
import { effectiveRole, type Role } from "../../../policy/roles";
import { overdueDueTimes } from "../../../policy/schedule";
import { readControls } from "../../../store/control/change";
import type { KnownAgent, KnownUser } from "../../../store/directory/directory";
import { standingOf } from "../../../store/directory/directory";
import { countHeldWork, type HeldCounts, heldByPolicy } from "../../../store/held/counts";
import { cadenceOf, listTriggers, type StoredTrigger } from "../../../store/held/triggers";
import type { HandlerContext } from "../context";
import { heldAsSeen } from "../held/held-as-seen";
import { runChecklist } from "./checklist";
import { type ControlView, controlView } from "./control-view";

export interface PreflightCommand {
  user: KnownUser;
  agent: KnownAgent;
}

interface PreflightBase {
  control: ControlView;
  resumer: { name: string; role: Role };
  /** The control record's version this preflight was read at; a chat Confirm resumes only at this version. */
  controlVersion: number;
  /** The tenant is paused too: resuming the agent alone releases nothing until an admin resumes the tenant. */
  tenantPaused: boolean;
}

/**
 * ready: this user may resume now, `held` is what a resume would release, and `forecast` what the triggers'
 * misfire policies make of the held occurrences (deliveries sent, coalesced among them, occurrences skipped).
 */
export type PreflightResult =
  | (PreflightBase & {
      kind: "ready";
      held: HeldCounts & { notYetRecorded: number };
      forecast: ReleaseForecast;
      /** The resume checklist (design.md section 12): any `fail` stops Confirm unless overridden. */
      checklist: CheckItem[];
    })
  | (PreflightBase & { kind: ResumeRefusal });

/**
 * The first step of a resume (design.md section 4): checks, with the same rule the resume itself uses,
 * whether the user may resume, and counts the held work. It only reads, so a chat card and the API's
 * `dryRun` can show it freely.
 */
export async function resumePreflight(ctx: HandlerContext, command: PreflightCommand): Promise<PreflightResult> {
  const { db } = ctx.store;
  const { user, agent } = command;
  const records = await readControls(db, [agentScope(agent.id), tenantScope(agent.tenantId)]);
  const current = records.get(agentScope(agent.id))!;
  const tenant = records.get(tenantScope(agent.tenantId)) ?? null;
  const role = effectiveRole(await standingOf(db, user, agent));
  const decision = decideResume(current, { kind: "user", actorId: user.id, role });
  const base: PreflightBase = {
    control: await controlView(db, agent, current, tenant, user),
    resumer: { name: user.name, role },
    controlVersion: current.version,
    tenantPaused: tenant ? tenant.state !== "RUNNING" : true,
  };
  if (decision.outcome !== "resumed") return { ...base, kind: decision.outcome };
  // The triggers (their last recorded due time) before the held rows: a tick that commits in between then
  // shows its rows in both reads, never in neither (the count errs high for a moment, never low).
  const triggers = await listTriggers(db, agent.id);
  const [held, byPolicy, checklist] = await Promise.all([
    countHeldWork(ctx.store, agent.id),
    heldByPolicy(db, agent.id),
    runChecklist(ctx, { agent, control: current, resumer: base.resumer }),
  ]);
  return {
    ...base,
    kind: "ready",
    // A preflight that is ready finds the agent paused: what waits for a retry waits for this resume too.
    ...withOverdue(heldAsSeen(held, true), byPolicy, triggers, ctx.now()),
    checklist: checklist.items,
  };
}

/**
 * Adds the due times no tick has recorded yet (Redis down, or its schedules being rebuilt) to what the
 * resume will release: the rebuild records them as held occurrences, so a dry run in that window counts
 * them instead of answering 0.
 */
function withOverdue(
  held: HeldCounts,
  byPolicy: Awaited<ReturnType<typeof heldByPolicy>>,
  triggers: StoredTrigger[],
  now: Date,
) {
  const perTrigger = new Map(byPolicy.map((t) => [t.triggerId, { misfire: t.misfire, held: t.held }]));
  const occurrencesByTrigger = { ...held.occurrencesByTrigger };
  let notYetRecorded = 0;
  for (const t of triggers) {
    const overdue = overdueDueTimes(cadenceOf(t), t.lastDueAt ?? t.createdAt, now).length;
    if (overdue === 0) continue;
    notYetRecorded += overdue;
    occurrencesByTrigger[t.key] = (occurrencesByTrigger[t.key] ?? 0) + overdue;
    perTrigger.set(t.id, { misfire: t.misfire, held: (perTrigger.get(t.id)?.held ?? 0) + overdue });
  }
  return {
    held: { ...held, occurrences: held.occurrences + notYetRecorded, occurrencesByTrigger, notYetRecorded },
    forecast: forecastRelease([...perTrigger.values()]),
  };
}
