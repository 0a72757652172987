import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { type ChatWiring, startChat } from "../../src/bot/main/chat-wiring";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { createLogger } from "../../src/bot/main/logger";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import type { Provider } from "../../src/store/connection/client";
import { syncDirectory } from "../../src/store/directory/directory";
import { type DiscordFake, type DiscordKeyPair, makeDiscordKeyPair, startDiscordFake } from "../fakes/discord-fake";
import { type RecordingServer, startRecordingServer } from "../fakes/recording-http";
import { postSigned, type SlackFake, startSlackFake } from "../fakes/slack-fake";
import { startTelegramFake, type TelegramFake } from "../fakes/telegram-fake";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { EXAMPLE_CONFIG, KEYS } from "../support/harness";

// Every door of one bot at once: the API, Slack, Telegram's webhook, Discord's HTTP endpoint and gateway, on
// either database, with the real logger (redaction included) writing into `logs`.

export const SLACK_SECRET = "slack-signing-secret-doors-0001";
export const SLACK_TOKEN = "xoxb-doors-token-0001";
export const TELEGRAM_TOKEN = "987654:DOORS-TELEGRAM-TOKEN";
export const TELEGRAM_SECRET = "telegram-webhook-secret-doors";
export const DISCORD_TOKEN = "discord-doors-token-0001";
export const DISCORD_APP = "1100000000000000001";
export const AGENT_KEYS = { ops: "demo-key-acme-ops-agent-0007", globex: "demo-key-globex-agent-0002" } as const;
export const DESTINATION = "http://127.0.0.1:4000/actions";

export interface Doors {
  db: TestDatabase;
  ctx: HandlerContext;
  http: FastifyInstance;
  url: string;
  chat: ChatWiring;
  agent: RecordingServer;
  slack: SlackFake;
  telegram: TelegramFake;
  discord: DiscordFake;
  discordKeys: DiscordKeyPair;
  /** Every log line the bot wrote, as JSON text. */
  logs: string[];
  /** Every secret and key the bot was configured with. */
  secrets: string[];
  api(method: string, url: string, key: string | null, body?: string, contentType?: string): Promise<Answer>;
  slackPost(body: string, contentType?: string, options?: { timestamp?: number; secret?: string }): Promise<Answer>;
  telegramPost(body: string, secret?: string): Promise<Answer>;
  discordPost(body: string, keys?: DiscordKeyPair, timestamp?: string): Promise<Answer>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  body: string;
}

export async function startDoors(provider: Provider): Promise<Doors> {
  const [slack, telegram, discord] = await Promise.all([
    startSlackFake({ teamId: "T0ACME" }),
    startTelegramFake(TELEGRAM_TOKEN),
    startDiscordFake({ applicationId: DISCORD_APP }),
  ]);
  const discordKeys = makeDiscordKeyPair();
  const agent = await startRecordingServer(() => ({ status: 200, body: { ok: true } }));
  const configFile = path.join(os.tmpdir(), `holdfast-doors-${process.pid}-${agent.port}.yaml`);
  fs.writeFileSync(
    configFile,
    fs.readFileSync(EXAMPLE_CONFIG, "utf8").replace("http://127.0.0.1:3000/demo/receiver", `${agent.url}/agent`),
  );
  const db = await createTestDatabase(provider);
  await syncDirectory(db.store, loadDirectoryFile(configFile));
  fs.rmSync(configFile);
  const logs: string[] = [];
  const log = createLogger("debug", { write: (line: string) => void logs.push(line) });
  const ctx: HandlerContext = { store: db.store, log, now: () => new Date(), events: new HoldfastEvents() };
  const http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }) });
  const env = {
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_URL: slack.apiUrl,
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
    TELEGRAM_API_ROOT: telegram.url,
    DISCORD_TOKEN,
    DISCORD_APPLICATION_ID: DISCORD_APP,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_PUBLIC_KEY: discordKeys.publicKeyHex,
  };
  const chat = await startChat({ env, ctx, http });
  await http.listen({ port: 0, host: "127.0.0.1" });
  const address = http.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const answer = async (response: Response): Promise<Answer> => ({
    status: response.status,
    body: await response.text(),
  });
  return {
    db,
    ctx,
    http,
    url,
    chat,
    agent,
    slack,
    telegram,
    discord,
    discordKeys,
    logs,
    secrets: [
      ...Object.values(KEYS),
      ...Object.values(AGENT_KEYS),
      SLACK_SECRET,
      SLACK_TOKEN,
      TELEGRAM_TOKEN,
      TELEGRAM_SECRET,
      DISCORD_TOKEN,
    ],
    async api(method, route, key, body, contentType = "application/json") {
      const response = await http.inject({
        method: method as "GET",
        url: route,
        headers: {
          ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": contentType } : {}),
        },
        payload: body,
      });
      return { status: response.statusCode, body: response.body };
    },
    async slackPost(body, contentType, options = {}) {
      const secret = options.secret ?? SLACK_SECRET;
      return answer(await postSigned(`${url}/slack/events`, body, secret, contentType, options));
    },
    async telegramPost(body, secret = TELEGRAM_SECRET) {
      const headers = { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret };
      return answer(await fetch(`${url}/telegram/webhook`, { method: "POST", headers, body }));
    },
    async discordPost(body, keys = discordKeys, timestamp) {
      const headers = { "content-type": "application/json", ...keys.headers(body, timestamp) };
      return answer(await fetch(`${url}/discord/interactions`, { method: "POST", headers, body }));
    },
    async close() {
      await chat.stop();
      await http.close();
      await Promise.all([agent.close(), slack.close(), telegram.close(), discord.close()]);
      await db.drop();
    },
  };
}

/**
 * A digest of everything a refused request must leave alone: control records, runs and their packets and
 * decisions, the outbox, triggers and their occurrences, inbound events. (Audit rows and chat buttons are
 * left out: a refused chat attempt is written to the audit log on purpose, and a preflight card is a view.)
 */
export async function stateDigest(doors: Doors): Promise<string> {
  const db = doors.db.store.db;
  const tables = await Promise.all([
    db.control.findMany({ orderBy: { scope: "asc" } }),
    db.run.findMany({ orderBy: { id: "asc" } }),
    db.packetVersion.findMany({ orderBy: [{ runId: "asc" }, { version: "asc" }] }),
    db.decisionEvent.findMany({ orderBy: [{ runId: "asc" }, { eventId: "asc" }] }),
    db.outboxItem.findMany({ orderBy: { id: "asc" } }),
    db.trigger.findMany({ orderBy: { id: "asc" } }),
    db.occurrence.findMany({ orderBy: { id: "asc" } }),
    db.inboxEvent.findMany({ orderBy: { seq: "asc" } }),
  ]);
  const text = JSON.stringify(tables, (_k, v) => (typeof v === "bigint" ? String(v) : v));
  return crypto.createHash("sha256").update(text).digest("hex");
}
