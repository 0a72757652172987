import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { CardPublisher, ChatActor, ChatRouter, ChatTransport } from "../../bot/surfaces/chat/types";
import { parseButtonValue } from "../../bot/surfaces/chat/types";
import { cardBlocks, escapeSlack } from "./render";
import type { Respond } from "./responder";

/** A button click as the neutral interaction; null for clicks that are not ours. */
function clickOf(body: BlockAction<ButtonAction>, action: ButtonAction) {
  const parsed = parseButtonValue(`${action.action_id}:${action.value ?? ""}`);
  const channelId = body.channel?.id ?? body.container?.channel_id;
  const messageId = body.message?.ts ?? body.container?.message_ts;
  if (!parsed || !channelId || !messageId) return null;
  const actor: ChatActor = {
    platform: "slack",
    userId: body.user.id,
    workspaceId: body.user.team_id ?? body.team?.id,
  };
  // trigger_id is Slack's id for this one click (a re-sent payload carries the same); action_ts pins the
  // button within it. The message ts would name the card, not the click.
  const interactionId = `${body.trigger_id}:${action.action_ts}`;
  return { interactionId, ...parsed, actor, card: { channelId, messageId } };
}

/** Resume Confirm/Cancel edit their card; Approve/Deny and escalation buttons answer the clicker with a note. */
export function registerSlackButtons(
  app: App,
  router: ChatRouter,
  transport: ChatTransport,
  publisher: CardPublisher,
  respond: Respond,
) {
  /** A note to the clicker alone, below the card it clicked (the card itself stays). */
  const answerClicker = (responseUrl: string, note: string) =>
    respond(responseUrl, { response_type: "ephemeral", replace_original: false, text: escapeSlack(note) });

  app.action<BlockAction<ButtonAction>>(/^resume\./, async ({ ack, body, action }) => {
    await ack();
    const click = clickOf(body, action);
    if (!click) return;
    const result = await router.interaction(click, transport);
    const settled = result.card;
    if (settled) {
      await publisher
        .edit(click.card, settled)
        .catch(() => respond(body.response_url, { replace_original: true, ...cardBlocks(settled) }));
    }
    await answerClicker(body.response_url, result.note);
  });

  // Approve/Deny: the receiver has already acked (RouteReceiver.ackThenProcess). Deciding before the ack was measured:
  // with 500 clicks at once on SQLite the acks then took up to 3.8 s, past Slack's 3 s. The decision is
  // durable once made; the clicker's note follows through response_url and every card is edited by the sync.
  // Escalation buttons answer with a note; an Open (url) button needs only the ack.
  app.action<BlockAction<ButtonAction>>(/^(run\.|escalation\.|link-)/, async ({ ack, body, action }) => {
    await ack();
    const click = clickOf(body, action);
    if (!click) return;
    const result = await router.interaction(click, transport);
    await answerClicker(body.response_url, result.note);
  });
}
