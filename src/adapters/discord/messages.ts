import { type Client, Events, type Message } from "discord.js";
import {
  type ChatActor,
  type ChatLog,
  type ChatRouter,
  type ChatTransport,
  visibleText,
} from "../../bot/surfaces/chat/types";

/** DMs and mentions of the bot go to the agent's conversation. */
export function registerDiscordMessages(client: Client, router: ChatRouter, transport: ChatTransport, log: ChatLog) {
  const handle = async (message: Message) => {
    if (message.author.bot || !client.user) return;
    const isDirect = message.guildId === null;
    if (!isDirect && !message.mentions.users.has(client.user.id)) return;
    const actor: ChatActor = {
      platform: "discord",
      userId: message.author.id,
      ...(message.guildId && { workspaceId: message.guildId }),
    };
    const text = message.content.replace(new RegExp(`<@!?${client.user.id}>\\s*`, "g"), "").trim();
    const reply = await router.message(
      { messageId: message.id, channelId: message.channelId, text, actor, isDirect },
      transport,
    );
    if (reply?.kind === "text")
      await message.reply({ content: visibleText(reply.text), allowedMentions: { parse: [] } });
  };
  client.on(Events.MessageCreate, (message) => {
    handle(message).catch((error: Error) => log.error({ err: error.message }, "discord message failed"));
  });
}
