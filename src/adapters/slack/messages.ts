import type { App } from "@slack/bolt";
import type { ChatActor, ChatRouter, ChatTransport } from "../../bot/surfaces/chat/types";
import { escapeSlack } from "./render";

/** Removes the leading "<@UBOT>" of a mention so the agent gets what the person wrote. */
const withoutMention = (text: string) => text.replace(/^\s*<@[\w]+>\s*/, "");

/** DMs and mentions go to the agent's conversation; answers other than the agent's own are ephemeral. */
export function registerSlackMessages(app: App, router: ChatRouter, transport: ChatTransport): void {
  app.event("message", async ({ event, body, client }) => {
    // Only plain human DMs: edits, joins and bot messages carry a subtype or a bot_id.
    if (event.channel_type !== "im" || event.subtype !== undefined || "bot_id" in event) return;
    const actor: ChatActor = { platform: "slack", userId: event.user, workspaceId: body.team_id };
    const reply = await router.message(
      { messageId: event.ts, channelId: event.channel, text: event.text ?? "", actor, isDirect: true },
      transport,
    );
    if (reply?.kind === "text")
      await client.chat.postMessage({ channel: event.channel, text: escapeSlack(reply.text) });
  });

  app.event("app_mention", async ({ event, body, client }) => {
    if (!event.user) return;
    const actor: ChatActor = { platform: "slack", userId: event.user, workspaceId: body.team_id };
    const text = withoutMention(event.text);
    const reply = await router.message(
      { messageId: event.ts, channelId: event.channel, text, actor, isDirect: false },
      transport,
    );
    if (reply?.kind === "text") {
      await client.chat.postEphemeral({ channel: event.channel, user: event.user, text: escapeSlack(reply.text) });
    }
  });
}
