import { type Client, Routes } from "discord.js";
import { type CardPublisher, visibleText } from "../../bot/surfaces/chat/types";
import { cardMessage, NO_MENTIONS } from "./render";

/** Cards are plain channel messages sent over REST, so they can be edited without an interaction token. */
export function discordPublisher(client: Client): CardPublisher {
  return {
    async openDirect(userId) {
      const channel = (await client.rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as {
        id: string;
      };
      return channel.id;
    },
    async post(channelId, card) {
      const sent = (await client.rest.post(Routes.channelMessages(channelId), { body: cardMessage(card) })) as {
        id: string;
      };
      return { channelId, messageId: sent.id };
    },
    async edit(ref, card) {
      await client.rest.patch(Routes.channelMessage(ref.channelId, ref.messageId), { body: cardMessage(card) });
    },
    async say(channelId, text) {
      const sent = (await client.rest.post(Routes.channelMessages(channelId), {
        body: { content: visibleText(text), allowed_mentions: NO_MENTIONS },
      })) as {
        id: string;
      };
      return { channelId, messageId: sent.id };
    },
  };
}
