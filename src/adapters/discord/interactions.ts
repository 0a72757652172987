import { type ButtonInteraction, type ChatInputCommandInteraction, MessageFlags } from "discord.js";
import type { CardPublisher, ChatActor, ChatRouter, ChatTransport, CommandName } from "../../bot/surfaces/chat/types";
import { COMMAND_NAMES, parseButtonValue, visibleText } from "../../bot/surfaces/chat/types";

/** Replies quote names and reasons people typed; none of them may ping anyone. */
const allowedMentions = { parse: [] };

/** Slash commands and button clicks from the gateway, each turned into one call of the neutral router. */
export function discordInteractions(router: ChatRouter, transport: ChatTransport, publisher: CardPublisher) {
  const actorOf = (i: { user: { id: string }; guildId: string | null }): ChatActor => ({
    platform: "discord",
    userId: i.user.id,
    ...(i.guildId && { workspaceId: i.guildId }),
  });

  async function onCommand(interaction: ChatInputCommandInteraction) {
    const name = interaction.commandName as CommandName;
    if (!COMMAND_NAMES.includes(name)) return;
    const text = interaction.options.data.map((o) => String(o.value ?? "")).join(" ");
    const channelId = interaction.channelId;
    const reply = await router.command({ name, text, actor: actorOf(interaction), channelId }, transport);
    if (reply.kind === "card") {
      // The card is an ordinary channel message, so the publisher can edit it later like any other card.
      await publisher.post(channelId, reply.card);
      await interaction.reply({ content: "Resume preflight posted.", flags: MessageFlags.Ephemeral, allowedMentions });
    } else {
      await interaction.reply({
        content: visibleText(reply.text),
        allowedMentions,
        ...(reply.ephemeral && { flags: MessageFlags.Ephemeral }),
      });
    }
  }

  async function onButton(interaction: ButtonInteraction) {
    const parsed = parseButtonValue(interaction.customId);
    if (!parsed) return;
    await interaction.deferUpdate();
    const card = { channelId: interaction.channelId, messageId: interaction.message.id };
    const result = await router.interaction(
      { interactionId: interaction.id, ...parsed, actor: actorOf(interaction), card },
      transport,
    );
    if (result.card) await publisher.edit(card, result.card);
    await interaction.followUp({ content: visibleText(result.note), flags: MessageFlags.Ephemeral, allowedMentions });
  }
  return { onCommand, onButton };
}
