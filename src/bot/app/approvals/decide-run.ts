import type { AgentSettings } from "../../../policy/agent-settings";
import type { DecisionAction, DecisionResult, RejectReason, StaleReason } from "../../../policy/approval";
import { decide, decisionFingerprint } from "../../../policy/approval";
import { actionKey, runName } from "../../../policy/ids";
import { type DecisionFacts, findDecisionFacts, type StoredDecision } from "../../../store/approvals/decisions";
import type { RunRecord } from "../../../store/approvals/runs";
import type { Store } from "../../../store/connection/client";
import type { KnownUser } from "../../../store/directory/directory";
import type { HandlerContext } from "../context";
import { commitRun } from "./commit-run";
import { destinationContract } from "./destinations";
import { type ApprovalRunView, approvalRunView, isCheckpointRun, seesDeliveryDetail } from "./run-view";

/** One approve/deny, from the API or a chat button. The actor is the authenticated user, never the payload. */
export interface DecideRunCommand {
  runId: string;
  /** Stable across transport retries; for a chat click, the platform's own interaction id. */
  eventId: string;
  action: DecisionAction;
  version: number;
  digest: string;
  actor: KnownUser;
}

/**
 * `not_found`: no such run in the actor's tenant (another tenant's run does not exist for them).
 * `reason` comes with `rejected` (which rule refused) and with `stale` (`version` or `digest`, plus the
 * run's `currentVersion`), so chat and API clients can say what happened. `R` is how the run is shown.
 */
export type DecisionOutcome<R> =
  | { result: Exclude<DecisionResult, "stale" | "rejected">; run: R }
  | { result: "rejected"; run: R; reason: RejectReason }
  | { result: "stale"; run: R; reason: StaleReason; currentVersion: number }
  | { result: "not_found"; run: null };

export type DecideRunResult = DecisionOutcome<ApprovalRunView>;

/** The decision that moved the run, as a reader names it. */
export interface DecidingView {
  result: string;
  by: string | null;
  at: string;
}

/** The decision that moved the run, as recorded, with its actor's name. */
export interface KnownDeciding {
  event: StoredDecision;
  view: DecidingView;
}

/**
 * The run as a decision left it, from what the decision itself knows: the record after a won commit (the
 * one read before it, moved on in memory), or the record as read when nothing was written. `deciding`: the
 * decision that moved the run when it is known without a read: the one this click won (`won`), or the one an
 * earlier click on the same run won just before this one's turn.
 */
export interface DecidedRun {
  record: RunRecord;
  deciding: KnownDeciding | null;
  /** This click's decision moved the run. */
  won: boolean;
}

type WithoutRun<T> = T extends unknown ? Omit<T, "run"> : never;
/** An outcome before the run is attached. */
type Answer = WithoutRun<Exclude<DecisionOutcome<unknown>, { result: "not_found" }>>;

/**
 * The views of a decided run answered to the clicks that took their turns on it just after the decision (by
 * reader: what a reader sees depends on their standing). Those clicks changed nothing, so the view read once
 * after the decision is theirs too; it is dropped with the decision once no click on the run is under way.
 */
const viewsAfter = new WeakMap<KnownDeciding, Map<string, Promise<ApprovalRunView>>>();

/** The API's answer: the run's full view, built from the decision's own record (no second read of the run). */
export async function decideRun(ctx: HandlerContext, command: DecideRunCommand): Promise<DecideRunResult> {
  const decided = await recordDecision(ctx, command);
  if (decided.result === "not_found") return decided;
  const { record, deciding } = decided.run;
  const build = () =>
    approvalRunView(ctx.store, record, seesDeliveryDetail(ctx.store, command.actor, record.agentId), deciding?.event);
  if (!deciding) return { ...decided, run: await build() } as DecideRunResult;
  let views = viewsAfter.get(deciding);
  if (!views) {
    views = new Map();
    viewsAfter.set(deciding, views);
  }
  let view = views.get(command.actor.id);
  if (!view) {
    view = build();
    views.set(command.actor.id, view);
    // A failed read is not handed to the next click: it reads again.
    view.catch(() => views.delete(command.actor.id));
  }
  return { ...decided, run: await view } as DecideRunResult;
}

/**
 * Clicks on one run take turns in this process, and a decided run is final (every write to a run is
 * conditional on `waiting`): so the clicks after a won decision answer from it, without a read, and the
 * clicks racing one in this process never lose a commit and try again. Only an optimisation: another process
 * may still race, and the database's conditional update decides between them.
 */
interface Turns {
  last: Promise<unknown>;
  queued: number;
  /** The run as a won decision of this process left it, with that decision. */
  settled: { record: RunRecord; deciding: KnownDeciding } | null;
}
const turnsOf = new WeakMap<Store, Map<string, Turns>>();

async function inTurn<T>(store: Store, runId: string, body: (turns: Turns) => Promise<T>): Promise<T> {
  let runs = turnsOf.get(store);
  if (!runs) {
    runs = new Map();
    turnsOf.set(store, runs);
  }
  let turns = runs.get(runId);
  if (!turns) {
    turns = { last: Promise.resolve(), queued: 0, settled: null };
    runs.set(runId, turns);
  }
  const mine = turns;
  mine.queued++;
  const turn = mine.last.then(() => body(mine));
  mine.last = turn.catch(() => {});
  try {
    return await turn;
  } finally {
    // The last click in line forgets the run: nothing is kept once no click on it is under way.
    if (--mine.queued === 0 && runs.get(runId) === mine) runs.delete(runId);
  }
}

/**
 * Decides once, and a lost race (to another process) once more on the fresh record (it then reads as
 * duplicate, stale or invalid_state). Reads the run, the event id's earlier decision and the agent in one
 * statement (none after a won decision on the same run in this process); writes in one transaction; reads
 * nothing after it.
 */
export function recordDecision(
  ctx: HandlerContext,
  command: DecideRunCommand,
  readBefore?: DecisionFacts | null,
): Promise<DecisionOutcome<DecidedRun>> {
  return inTurn(ctx.store, command.runId, (turns) => decideInTurn(ctx, command, turns, readBefore));
}

/**
 * Facts read before the click's turn (with its caller, `identifyClicker`) stand for the run's when the run had
 * left `waiting` by then: a decided run is final, and this click's event cannot have decided it since. A
 * waiting run is read again in the turn, as a click just before this one may have decided it.
 */
const finalBefore = (readBefore: DecisionFacts | null | undefined, command: DecideRunCommand) =>
  readBefore && readBefore.run.id === command.runId && readBefore.run.state !== "waiting" ? readBefore : null;

async function decideInTurn(
  ctx: HandlerContext,
  command: DecideRunCommand,
  turns: Turns,
  readBefore: DecisionFacts | null | undefined,
): Promise<DecisionOutcome<DecidedRun>> {
  for (let round = 0; round < 2; round++) {
    const facts =
      round === 0 && turns.settled
        ? settledFacts(turns.settled, command)
        : (round === 0 && finalBefore(readBefore, command)) || (await readFacts(ctx, command));
    const run = facts?.run;
    // A checkpoint-only run has no packet to decide on: for a decision it is not an approval run at all.
    if (!facts || !run || run.tenantId !== command.actor.tenantId || isCheckpointRun(run))
      return { result: "not_found", run: null };
    const outcome = await decideOnce(ctx, facts, command, turns.settled?.deciding ?? knownDeciding(facts));
    if (outcome !== "lost") {
      ctx.log.info(
        { run: run.id, event: command.eventId, actor: command.actor.id, result: outcome.answer.result },
        "decision",
      );
      if (outcome.run.won && outcome.run.deciding)
        turns.settled = { record: outcome.run.record, deciding: outcome.run.deciding };
      return { ...outcome.answer, run: outcome.run } as DecisionOutcome<DecidedRun>;
    }
  }
  const facts = await readFacts(ctx, command);
  return { result: "invalid_state", run: { record: facts!.run, deciding: null, won: false } };
}

const readFacts = (ctx: HandlerContext, command: DecideRunCommand) =>
  findDecisionFacts(ctx.store, command.runId, command.eventId);

/** The facts of a run this process saw decided: its only decision event is the deciding one. */
const settledFacts = (settled: NonNullable<Turns["settled"]>, command: DecideRunCommand): DecisionFacts => ({
  run: settled.record,
  recorded: settled.deciding.event.eventId === command.eventId ? settled.deciding.event : null,
  agentSettings: null,
  deciding: { event: settled.deciding.event, actorName: settled.deciding.view.by },
});

/** The decision that moved the run, as read with the run. */
const knownDeciding = ({ deciding }: DecisionFacts): KnownDeciding | null =>
  deciding && {
    event: deciding.event,
    // A user no longer in the directory is named by their id, as userName names them.
    view: {
      result: deciding.event.result,
      by: deciding.actorName ?? deciding.event.actorId,
      at: deciding.event.at.toISOString(),
    },
  };

type Decided = { answer: Answer; run: DecidedRun };

async function decideOnce(
  ctx: HandlerContext,
  { run, recorded, agentSettings }: DecisionFacts,
  command: DecideRunCommand,
  known: KnownDeciding | null,
): Promise<Decided | "lost"> {
  const now = ctx.now();
  const decision = decide(
    run,
    command,
    command.actor,
    now,
    recorded ? { fingerprint: recorded.fingerprint, result: recorded.result as DecisionResult } : null,
  );
  const unchanged = (answer: Answer): Decided => ({ answer, run: { record: run, deciding: known, won: false } });
  if (decision.result === "rejected") return unchanged({ result: decision.result, reason: decision.reason });
  if (decision.result === "stale")
    return unchanged({ result: "stale", reason: decision.reason, currentVersion: decision.currentVersion });
  if (decision.result === "duplicate") ctx.metrics?.duplicateSuppressed("decision");
  if (decision.result !== "approved" && decision.result !== "denied") return unchanged({ result: decision.result });

  const approve = decision.result === "approved";
  const event = {
    eventId: command.eventId,
    fingerprint: decisionFingerprint(command, command.actor.id),
    actorId: command.actor.id,
    action: command.action,
    version: command.version,
    digest: command.digest,
    result: decision.result,
  };
  const won = await commitRun(ctx, run, decision.result, {
    next: decision.next,
    at: now,
    event,
    outbox: approve ? plannedAction(run, agentSettings) : undefined,
    faults: approve ? ctx.faults : undefined,
  });
  if (!won) return "lost" as const;
  if (approve) ctx.faults?.reach("after-approve-commit");
  ctx.events.emit("run.changed", run.id);
  if (approve) ctx.events.emit("outbox.planned");
  const after: RunRecord = { ...run, ...decision.next, decidedBy: command.actor.id, decidedAt: now, updatedAt: now };
  const deciding: KnownDeciding = {
    event: { ...event, at: now },
    view: { result: decision.result, by: command.actor.name, at: now.toISOString() },
  };
  return { answer: { result: decision.result }, run: { record: after, deciding, won: true } };
}

/** The approved packet version's outbox row; the contract is read from config now and travels with it. */
function plannedAction(run: RunRecord, agentSettings: AgentSettings | null) {
  return {
    id: actionKey(run.id, run.version, run.operation),
    kind: "action" as const,
    tenantId: run.tenantId,
    agentId: run.agentId,
    runId: run.id,
    digest: run.digest,
    destination: run.destination,
    contract: (agentSettings ? destinationContract({ settings: agentSettings }, run.destination) : undefined) ?? "none",
    payload: {
      run: runName(run.tenantId, run.id),
      operation: run.operation,
      version: run.version,
      digest: run.digest,
      packet: JSON.parse(run.packet),
    },
  };
}
