import { findChatButton } from "../../../store/chat/buttons";
import { decideRun } from "../../app/approvals/decide-run";
import type { HandlerContext } from "../../app/context";
import type { KnownUser } from "../../app/records";
import { decisionNoteText } from "./decision-words";
import type { ChatInteraction, InteractionResult } from "./types";

interface BoundDecision {
  runId: string;
  version: number;
  digest: string;
}

const isBound = (payload: Record<string, unknown>): payload is Record<string, unknown> & BoundDecision =>
  typeof payload.runId === "string" && typeof payload.version === "number" && typeof payload.digest === "string";

/**
 * A click on Approve or Deny. The button names a stored binding (run, version, full digest); the actor is
 * the platform identity that clicked, already mapped to a directory user; the platform's id for the click is
 * the event id, so a re-sent click is a `duplicate`. The same `decideRun` as the API decides. The cards
 * themselves are edited by the card sync that the decision's `run.changed` starts, on every platform.
 */
export async function decideFromChat(
  ctx: HandlerContext,
  user: KnownUser,
  click: ChatInteraction,
): Promise<InteractionResult> {
  const button = await findChatButton(ctx.store.db, click.token);
  // Another tenant's button is as unknown as a made-up one.
  if (!button || button.tenantId !== user.tenantId || button.action !== click.action || !isBound(button.payload)) {
    return { note: decisionNoteText({ outcome: { result: "unknown_button" } }) };
  }
  const { runId, version, digest } = button.payload;
  const outcome = await decideRun(ctx, {
    runId,
    // Namespaced, because two platforms' ids for different clicks could be equal strings.
    eventId: `${click.actor.platform}:${click.interactionId}`,
    action: click.action === "run.approve" ? "approve" : "deny",
    version,
    digest,
    actor: user,
  });
  return { note: decisionNoteText({ outcome, cardVersion: version }) };
}
