import { decideByButton } from "../../app/chat/buttons";
import type { HandlerContext } from "../../app/context";
import type { DecisionFacts, KnownUser, StoredButton } from "../../app/records";
import { decisionNoteText } from "./decision-words";
import type { ChatInteraction, InteractionResult } from "./types";

/**
 * A click on Approve or Deny, in words. The cards themselves are edited by the card sync that the decision's
 * `run.changed` starts, on every platform.
 */
export async function decideFromChat(
  ctx: HandlerContext,
  user: KnownUser,
  click: ChatInteraction,
  read: { button: StoredButton | null; facts?: DecisionFacts | null },
): Promise<InteractionResult> {
  const eventId = clickEventId(click);
  return {
    note: decisionNoteText(
      await decideByButton(ctx, user, { token: click.token, action: click.action, eventId }, read.button, read.facts),
    ),
  };
}

/** A click's decision event id: namespaced by platform, as two platforms' ids for different clicks could be equal. */
export const clickEventId = (click: ChatInteraction): string => `${click.actor.platform}:${click.interactionId}`;
