import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { createSignInPath } from "../../src/bot/app/auth/console-sessions";
import type { HandlerContext } from "../../src/bot/app/context";
import { HoldfastEvents } from "../../src/bot/app/events";
import { type ChatWiring, startChat } from "../../src/bot/main/chat-wiring";
import { loadDirectoryFile, PORT_PLACEHOLDER } from "../../src/bot/main/config/directory-file";
import { buildHttpServer } from "../../src/bot/surfaces/http/server";
import { agentScope } from "../../src/policy/ids";
import type { Provider, StoreOptions } from "../../src/store/connection/client";
import { listAudit, readControl, type StoredControl } from "../../src/store/control/change";
import type { KnownUser } from "../../src/store/directory/directory";
import { syncDirectory } from "../../src/store/directory/directory";
import { type RecordingServer, startRecordingServer } from "../fakes/recording-http";
import { createTestDatabase, type TestDatabase } from "./databases";
import { EXAMPLE_CONFIG } from "./harness";

export const OPS_AGENT_KEY = "demo-key-acme-ops-agent-0007";
const OPS_AGENT = "acme:ops-agent";

export interface ChatHarness {
  db: TestDatabase;
  ctx: HandlerContext;
  http: FastifyInstance;
  /** Base URL of the main server (webhooks and API). */
  url: string;
  chat: ChatWiring;
  /** Stands in for ops-agent's conversation webhook (`POST /agent`). */
  agent: RecordingServer;
  control(): Promise<StoredControl>;
  auditCount(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The bot's HTTP server with the chat layer wired from `env`, on a fresh database of `provider` loaded from the
 * example directory, with ops-agent's webhook pointed at a local recording receiver. `storeOptions` go to
 * `openStore` (a statement counter).
 */
export async function startChatHarness(
  provider: Provider,
  env: Record<string, string>,
  storeOptions: StoreOptions = {},
): Promise<ChatHarness> {
  const agent = await startRecordingServer(() => ({ status: 200, body: { ok: true } }));
  const configFile = path.join(os.tmpdir(), `holdfast-chat-${process.pid}-${agent.port}.yaml`);
  const example = fs.readFileSync(EXAMPLE_CONFIG, "utf8");
  fs.writeFileSync(
    configFile,
    example.replace(`http://127.0.0.1:${PORT_PLACEHOLDER}/demo/receiver`, `${agent.url}/agent`),
  );
  const db = await createTestDatabase(provider, storeOptions);
  await syncDirectory(db.store, loadDirectoryFile(configFile));
  fs.rmSync(configFile);
  const ctx: HandlerContext = {
    store: db.store,
    log: pino({ level: "silent" }),
    now: () => new Date(),
    events: new HoldfastEvents(),
  };
  const http = buildHttpServer({ ctx, health: async () => ({ ok: true, checks: {} }) });
  const consoleLink = async (user: KnownUser) => `http://console.test${await createSignInPath(ctx, user)}`;
  const chat = await startChat({ env, ctx, http, consoleLink });
  await http.listen({ port: 0, host: "127.0.0.1" });
  const address = http.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    db,
    ctx,
    http,
    url: `http://127.0.0.1:${port}`,
    chat,
    agent,
    control: async () => (await readControl(db.store.db, agentScope(OPS_AGENT)))!,
    auditCount: async () => (await listAudit(db.store.db, agentScope(OPS_AGENT))).length,
    async close() {
      await chat.stop();
      await http.close();
      await agent.close();
      await db.drop();
    },
  };
}

/** The agent's reply into a chat, through the public API with the agent's key. */
export async function agentSays(h: ChatHarness, body: { platform: string; channel: string; text: string }) {
  const response = await fetch(`${h.url}/v1/agents/ops-agent/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${OPS_AGENT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
