import { findChatButton } from "../../../store/chat/buttons";
import type { HandlerContext } from "../../app/context";
import { acknowledge, takeOver } from "../../app/escalation/escalations";
import type { KnownUser } from "../../app/records";
import type { ChatInteraction, InteractionResult } from "./types";
import { ackNoteText, takeOverNoteText } from "./words";

/** A click on a ping's Acknowledge or Take over: the button names the escalation; the same handlers as the API. */
export async function escalationFromChat(
  ctx: HandlerContext,
  user: KnownUser,
  click: ChatInteraction,
): Promise<InteractionResult> {
  const button = await findChatButton(ctx.store.db, click.token);
  const id = button?.payload.escalationId;
  // Another tenant's button is as unknown as a made-up one.
  if (!button || button.tenantId !== user.tenantId || button.action !== click.action || typeof id !== "string") {
    return { note: ackNoteText({ kind: "not_found" }) };
  }
  if (click.action === "escalation.ack") return { note: ackNoteText(await acknowledge(ctx, user, id)) };
  return { note: takeOverNoteText(await takeOver(ctx, user, id)) };
}
