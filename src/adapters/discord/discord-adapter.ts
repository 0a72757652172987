import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  Partials,
  Routes,
} from "discord.js";
import type {
  ChatActor,
  ChatAdapter,
  ChatLog,
  ChatRouter,
  ChatTransport,
  CommandName,
} from "../../bot/surfaces/chat/types";
import { COMMAND_NAMES, parseButtonValue } from "../../bot/surfaces/chat/types";
import { DISCORD_COMMANDS } from "./commands";
import { interactionsRoute } from "./interactions-endpoint";
import { registerDiscordMessages } from "./messages";
import { guardGatewayPackets } from "./packet-guard";
import { discordPublisher } from "./publisher";

export interface DiscordAdapterOptions {
  token: string;
  applicationId: string;
  /** REST base without the version. Default https://discord.com/api. */
  apiUrl?: string;
  /** Present: also accept signed interactions at `POST /discord/interactions`. */
  publicKey?: string;
  router: ChatRouter;
  log: ChatLog;
}

/** Replies quote names and reasons people typed; none of them may ping anyone. */
const allowedMentions = { parse: [] };

export function createDiscordAdapter(options: DiscordAdapterOptions): ChatAdapter {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
    // DM channels are not cached; without this partial discord.js drops DM messages.
    partials: [Partials.Channel],
    rest: { api: options.apiUrl ?? "https://discord.com/api", version: "10", retries: 0 },
  });
  const publisher = discordPublisher(client);
  const transport: ChatTransport = {
    platform: "discord",
    async checkCredentials() {
      return client.isReady()
        ? { ok: true, detail: `gateway client ready as ${client.user.username}` }
        : { ok: false, detail: "gateway client not connected" };
    },
  };
  const { router, log } = options;
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
        content: reply.text,
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
    await interaction.followUp({ content: result.note, flags: MessageFlags.Ephemeral, allowedMentions });
  }

  guardGatewayPackets(client, log);
  client.on(Events.InteractionCreate, (interaction) => {
    const work = async () => {
      if (interaction.isChatInputCommand()) await onCommand(interaction);
      else if (interaction.isButton()) await onButton(interaction);
    };
    work().catch((error: Error) => log.error({ err: error.message }, "discord interaction failed"));
  });
  // An 'error' event without a listener is thrown by EventEmitter itself.
  client.on(Events.Error, (error) => log.error({ err: error.message }, "discord client error"));
  client.on(Events.ShardError, (error) => log.warn({ err: error.message }, "discord gateway error"));
  registerDiscordMessages(client, router, transport, log);

  return {
    platform: "discord",
    publisher,
    routes: options.publicKey ? [interactionsRoute(client, options.publicKey, log)] : [],
    async start() {
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      await client.login(options.token);
      await ready;
      await client.rest.put(Routes.applicationCommands(options.applicationId), { body: DISCORD_COMMANDS });
      log.info({ commands: DISCORD_COMMANDS.length }, "discord commands registered");
    },
    async stop() {
      await client.destroy();
    },
  };
}
