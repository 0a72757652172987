import { decideByButton } from "../../app/chat/buttons";
import type { HandlerContext } from "../../app/context";
import type { KnownUser, StoredButton } from "../../app/records";
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
  button: StoredButton | null,
): Promise<InteractionResult> {
  const eventId = `${click.actor.platform}:${click.interactionId}`;
  return {
    note: decisionNoteText(
      await decideByButton(ctx, user, { token: click.token, action: click.action, eventId }, button),
    ),
  };
}
