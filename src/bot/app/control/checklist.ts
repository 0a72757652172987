import {
  type CheckItem,
  type HeldAction,
  judgeActor,
  judgeCheckpoint,
  judgeCredentials,
  judgeIdempotency,
  judgeInbound,
  judgePending,
  type TriggerLedger,
} from "../../../policy/resume-checklist";
import type { StoredControl } from "../../../store/control/change";
import { countRevokedTokens } from "../../../store/directory/agent-tokens";
import type { KnownAgent } from "../../../store/directory/directory";
import { dueTimesSince, heldActions, inboundSince, lastCheckpointOf } from "../../../store/held/resume-ledger";
import { cadenceOf, listTriggers } from "../../../store/held/triggers";
import type { HandlerContext } from "../context";
import { askReadiness } from "./readiness";

export interface ChecklistSubject {
  agent: KnownAgent;
  /** The agent's paused control record: its `setAt` is when the pause began. */
  control: StoredControl;
  resumer: { name: string; role: string };
}

/** The checklist with the facts it was judged on that the release needs (the actions to send without retries). */
export interface Checklist {
  items: CheckItem[];
  retriesOff: HeldAction[];
}

/**
 * Where a trigger's unbroken sequence starts: at the pause for a trigger that ticked before it; a trigger
 * registered during the pause starts with its first recorded tick (its scheduler's first slot comes after a
 * registration, not at it), so only gaps after that count.
 */
function sequenceStart(createdAt: Date, pausedAt: Date, firstRecorded: Date | undefined): Date {
  if (createdAt <= pausedAt) return pausedAt;
  return firstRecorded ? new Date(firstRecorded.getTime() - 1) : createdAt;
}

/**
 * The resume checklist (design.md section 12), in its order: the agent's word on its checkpoint, the held
 * ledger against the schedule, the events held, the tokens revoked, the destinations' key windows, the
 * resumer. It only reads (and asks the agent), so a preflight may run it as often as it is shown.
 */
export async function runChecklist(ctx: HandlerContext, subject: ChecklistSubject): Promise<Checklist> {
  const { db } = ctx.store;
  const { agent, control, resumer } = subject;
  const pausedAt = control.setAt ?? new Date(0);
  const now = ctx.now();
  const [last, triggers, rows, actions, inbound, revoked] = await Promise.all([
    lastCheckpointOf(db, agent.id),
    listTriggers(db, agent.id),
    dueTimesSince(db, agent.id, pausedAt),
    heldActions(ctx.store, agent.id),
    inboundSince(db, agent.id, pausedAt),
    countRevokedTokens(db, agent.id, pausedAt),
  ]);
  const readiness = await askReadiness(ctx, agent, last);
  const ledgers: TriggerLedger[] = triggers.map((t) => ({
    key: t.key,
    cadence: cadenceOf(t),
    after: sequenceStart(t.createdAt, pausedAt, rows.find((r) => r.triggerId === t.id)?.dueAt),
    upTo: t.lastDueAt,
    recorded: rows.filter((r) => r.triggerId === t.id).map((r) => r.dueAt),
  }));
  const perRun = new Map<string, number>();
  for (const a of actions) if (a.runId) perRun.set(a.runId, (perRun.get(a.runId) ?? 0) + 1);
  const held: HeldAction[] = actions.map((a) => ({
    key: a.id,
    destination: a.destination,
    contract: a.contract,
    approvedAt: a.createdAt,
  }));
  const idempotency = judgeIdempotency(held, now);
  const stale = new Set(idempotency.actions ?? []);
  return {
    items: [
      judgeCheckpoint(readiness, last?.name ?? null),
      judgePending(ledgers, perRun),
      judgeInbound(inbound.waiting, inbound.done),
      judgeCredentials(revoked),
      idempotency,
      judgeActor(resumer.name, resumer.role),
    ],
    retriesOff: held.filter((a) => stale.has(a.key)),
  };
}
