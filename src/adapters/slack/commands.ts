import type { App } from "@slack/bolt";
import type { CardPublisher, ChatActor, ChatRouter, ChatTransport, CommandName } from "../../bot/surfaces/chat/types";
import { COMMAND_NAMES } from "../../bot/surfaces/chat/types";
import { cardBlocks, escapeSlack } from "./render";
import type { Respond } from "./responder";

/** Slash commands: each is acked at once and answered through its response_url (or posted as a card). */
export function registerSlackCommands(
  app: App,
  router: ChatRouter,
  transport: ChatTransport,
  publisher: CardPublisher,
  respond: Respond,
) {
  const commandPattern = new RegExp(`^/(${COMMAND_NAMES.join("|")})$`);
  app.command(commandPattern, async ({ command, ack }) => {
    // Ack at once; the answer follows through response_url, so a slow database never breaks Slack's 3 s.
    await ack();
    const actor: ChatActor = { platform: "slack", userId: command.user_id, workspaceId: command.team_id };
    const name = command.command.slice(1) as CommandName;
    const reply = await router.command({ name, text: command.text, actor, channelId: command.channel_id }, transport);
    if (reply.kind === "text") {
      await respond(command.response_url, {
        response_type: reply.ephemeral ? "ephemeral" : "in_channel",
        text: escapeSlack(reply.text),
      });
      return;
    }
    // A bot that is not a member of the channel cannot post there (not_in_channel); the card then goes to
    // the caller alone through response_url, and clicks on it are answered through their own response_url.
    await publisher
      .post(command.channel_id, reply.card)
      .catch(() => respond(command.response_url, { response_type: "ephemeral", ...cardBlocks(reply.card) }));
  });
}
