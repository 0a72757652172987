import { Client, Events, GatewayIntentBits, Partials, Routes } from "discord.js";
import type { ChatAdapter, ChatLog, ChatRouter, ChatTransport } from "../../bot/surfaces/chat/types";
import { DISCORD_COMMANDS } from "./commands";
import { discordInteractions } from "./interactions";
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
  const { onCommand, onButton } = discordInteractions(router, transport, publisher);
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
