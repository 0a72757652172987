import { afterAll, beforeAll } from "vitest";
import type { Provider } from "../../src/store/connection/client";
import { type DiscordFake, type DiscordKeyPair, makeDiscordKeyPair, startDiscordFake } from "../fakes/discord-fake";
import { type SlackFake, startSlackFake } from "../fakes/slack-fake";
import { startTelegramFake, type TelegramFake } from "../fakes/telegram-fake";
import { type ChatHarness, startChatHarness } from "./chat-harness";

// One platform's fake and the chat harness pointed at it, started before a contract file's tests and closed
// after them. `started` hands them to the file's own variables, so its tests read `fake` and `h` as before.

export const SLACK_SECRET = "slack-signing-secret-for-tests";
export const SLACK_TEAM = "T0ACME";
export const DISCORD_APP = "1100000000000000001";
export const TELEGRAM_TOKEN = "123456:TEST-TOKEN";
export const TELEGRAM_SECRET = "telegram-webhook-secret";

function useChat<F extends { close(): Promise<void> }>(
  provider: Provider,
  startFake: () => Promise<F>,
  env: (fake: F) => Record<string, string>,
): () => { fake: F; h: ChatHarness } {
  let fake: F | undefined;
  let h: ChatHarness | undefined;
  beforeAll(async () => {
    fake = await startFake();
    h = await startChatHarness(provider, env(fake));
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });
  return () => ({ fake: fake!, h: h! });
}

export function useSlackChat(provider: Provider, started: (s: { fake: SlackFake; h: ChatHarness }) => void): void {
  const get = useChat(
    provider,
    () => startSlackFake({ teamId: SLACK_TEAM }),
    (fake) => ({ SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_API_URL: fake.apiUrl }),
  );
  beforeAll(() => started(get()));
}

export function useTelegramChat(
  provider: Provider,
  started: (s: { fake: TelegramFake; h: ChatHarness }) => void,
): void {
  const get = useChat(
    provider,
    () => startTelegramFake(TELEGRAM_TOKEN),
    (fake) => ({
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
      TELEGRAM_API_ROOT: fake.url,
    }),
  );
  beforeAll(() => started(get()));
}

/** Discord also lends the key pair its HTTP interactions are signed with. */
export function useDiscordChat(
  provider: Provider,
  started: (s: { fake: DiscordFake; keys: DiscordKeyPair; h: ChatHarness }) => void,
): void {
  const keys = makeDiscordKeyPair();
  const get = useChat(
    provider,
    () => startDiscordFake({ applicationId: DISCORD_APP }),
    (fake) => ({
      DISCORD_TOKEN: "discord-bot-token",
      DISCORD_APPLICATION_ID: DISCORD_APP,
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_PUBLIC_KEY: keys.publicKeyHex,
    }),
  );
  beforeAll(() => started({ ...get(), keys }));
}
