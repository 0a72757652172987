import type { HandlerContext } from "../../app/context";
import { acknowledge, escalationOfButton, takeOver } from "../../app/escalation/escalations";
import type { KnownUser } from "../../app/records";
import type { ChatInteraction, InteractionResult } from "./types";
import { ackNoteText, takeOverNoteText } from "./words";

/** A click on a ping's Acknowledge or Take over: the button names the escalation; the same handlers as the API. */
export async function escalationFromChat(
  ctx: HandlerContext,
  user: KnownUser,
  click: ChatInteraction,
): Promise<InteractionResult> {
  const id = await escalationOfButton(ctx, user, click.token, click.action);
  if (id === null) return { note: ackNoteText({ kind: "not_found" }) };
  if (click.action === "escalation.ack") return { note: ackNoteText(await acknowledge(ctx, user, id)) };
  return { note: takeOverNoteText(await takeOver(ctx, user, id)) };
}
