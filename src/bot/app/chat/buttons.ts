import { agentNameOf } from "../../../policy/ids";
import { type DecisionFacts, findDeciding } from "../../../store/approvals/decisions";
import { findChatButton, type StoredButton } from "../../../store/chat/buttons";
import { type KnownUser, userName } from "../../../store/directory/directory";
import { type DecidedRun, type DecidingView, type DecisionOutcome, recordDecision } from "../approvals/decide-run";
import type { HandlerContext } from "../context";
import { type HoldReason, outboundHeld } from "../control/outbound-held";

/** A click on a stored button: its token, the action the platform says was clicked, the platform's id for it. */
export interface ButtonClick {
  token: string;
  action: string;
  /** Namespaced by platform, because two platforms' ids for different clicks could be equal strings. */
  eventId: string;
}

/** What an approval click's note says of the run (the API's full run view has these fields too). */
export interface NoteRun {
  operation: string;
  version: number;
  state: string;
  decision?: DecidingView;
}

export interface ButtonDecision {
  outcome: DecisionOutcome<NoteRun> | { result: "unknown_button" };
  /** The packet version the clicked card was for. */
  cardVersion?: number;
  /** Why an approved action waits instead of going out (the agent is paused, ...); null: it goes out. */
  held?: HoldReason | null;
}

/** The caller's button for this action, or null: another tenant's button is as unknown as a made-up one. */
export async function ownButton(
  ctx: HandlerContext,
  user: KnownUser,
  click: ButtonClick,
): Promise<StoredButton | null> {
  return ownedButton(await findChatButton(ctx.store, click.token), user, click);
}

/** `stored` (the button the click's token names, read already) if it is the caller's for this action. */
export const ownedButton = (stored: StoredButton | null, user: KnownUser, click: ButtonClick): StoredButton | null =>
  stored && stored.tenantId === user.tenantId && stored.action === click.action ? stored : null;

interface BoundDecision {
  runId: string;
  version: number;
  digest: string;
}

const isBound = (payload: Record<string, unknown>): payload is Record<string, unknown> & BoundDecision =>
  typeof payload.runId === "string" && typeof payload.version === "number" && typeof payload.digest === "string";

/**
 * A click on Approve or Deny. The button names a stored binding (run, version, full digest); the user is the
 * platform identity that clicked, already mapped; the click's id is the event id, so a re-sent click is a
 * `duplicate`. The same decision as the API's; the note is built from what the decision returned. `stored` is
 * the button the click's token names and `facts` its run's decision facts, read with the caller
 * (`identifyClicker`).
 */
export async function decideByButton(
  ctx: HandlerContext,
  user: KnownUser,
  click: ButtonClick,
  stored: StoredButton | null,
  facts?: DecisionFacts | null,
): Promise<ButtonDecision> {
  const button = ownedButton(stored, user, click);
  if (!button || !isBound(button.payload)) return { outcome: { result: "unknown_button" } };
  const { runId, version, digest } = button.payload;
  const action = click.action === "run.approve" ? "approve" : "deny";
  const command = { runId, eventId: click.eventId, action, version, digest, actor: user } as const;
  const decided = await recordDecision(ctx, command, facts);
  if (decided.result === "not_found") return { outcome: decided, cardVersion: version };
  const { record } = decided.run;
  const held =
    decided.result === "approved" ? await outboundHeld(ctx, record.tenantId, agentNameOf(record.agentId)) : null;
  return { outcome: { ...decided, run: await noteRun(ctx, user, decided.run) }, cardVersion: version, held };
}

/**
 * A decision this click (or the click just before it on the run) won is known already; otherwise the one that
 * moved the run is read, with its name.
 */
async function noteRun(ctx: HandlerContext, user: KnownUser, { record, deciding }: DecidedRun): Promise<NoteRun> {
  const shown = { operation: record.operation, version: record.version, state: record.state };
  if (deciding) return { ...shown, decision: deciding.view };
  const moved = await findDeciding(ctx.store.db, record.id);
  if (!moved) return shown;
  const by = moved.actorId === user.id ? user.name : await userName(ctx.store.db, moved.actorId);
  return { ...shown, decision: { result: moved.result, by, at: moved.at.toISOString() } };
}
