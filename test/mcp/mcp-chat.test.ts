import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKey } from "../../src/policy/ids";
import { callbackQueryUpdate, commandUpdate, type TelegramFake } from "../fakes/telegram-fake";
import { DESTINATION } from "../support/approval-cards";
import { type ChatHarness, OPS_AGENT_KEY } from "../support/chat-harness";
import { PROVIDERS } from "../support/databases";
import { TELEGRAM_SECRET, useTelegramChat } from "../support/platform-chats";
import { callTool, connectAgent } from "./mcp-client";

// The people act in chat (real Telegraf behind its webhook, against the Bot API fake); the agent sees it over MCP.
describe.each(PROVIDERS)("MCP with decisions and pauses made in chat on %s", (provider) => {
  const RITA = 7000004;
  const ALICE = 7000002;
  let fake: TelegramFake;
  let h: ChatHarness;
  let agent: Client;
  useTelegramChat(provider, (started) => ({ fake, h } = started));
  beforeAll(async () => {
    agent = await connectAgent(h.url, OPS_AGENT_KEY);
  });
  afterAll(async () => agent?.close());

  const post = async (update: object) => {
    const response = await fetch(`${h.url}/telegram/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
      body: JSON.stringify(update),
    });
    await response.text();
    expect(response.status).toBe(200);
  };

  it("wakes wait_for_approval within a second of rita's Approve click, with who decided", async () => {
    const created = await callTool(agent, "request_approval", {
      id: "chat-approve",
      operation: "send-invoice",
      destination: DESTINATION,
      packet: { invoice: { amount: 300 } },
      reviewers: ["rita"],
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(created.structuredContent).toMatchObject({ state: "waiting", version: 1 });
    await h.chat.cards.sync(runKey("acme", "chat-approve"));
    const card = fake
      .callsTo("sendMessage")
      .map((c) => c.json as { chat_id: string; text: string; reply_markup: { inline_keyboard: any[][] } })
      .find((m) => m.chat_id === String(RITA) && m.text.includes("Run: chat-approve\n"))!;
    const approve = card.reply_markup.inline_keyboard[0]![0]!.callback_data as string;
    const messageId = (await h.db.store.db.chatCard.findFirst({ where: { runId: runKey("acme", "chat-approve") } }))!
      .messageId;

    const waiting = callTool(agent, "wait_for_approval", { id: "chat-approve" });
    await new Promise((r) => setTimeout(r, 500));
    const clickedAt = Date.now();
    await post(
      callbackQueryUpdate({ id: "cbq-mcp-1", fromId: RITA, chatId: RITA, messageId: Number(messageId), data: approve }),
    );
    const answer = await waiting;
    expect(Date.now() - clickedAt).toBeLessThan(1_000);
    expect(answer.structuredContent).toMatchObject({
      state: "approved",
      timedOut: false,
      decision: { action: "approve", by: "rita", eventId: "telegram:cbq-mcp-1" },
    });
  });

  it("shows a pause set in chat, its hold and reason, in get_status", async () => {
    const running = await callTool(agent, "get_status");
    expect(running.structuredContent).toMatchObject({ state: "RUNNING", held: false, heldBecause: null });
    await post(commandUpdate({ fromId: ALICE, text: "/pause vacation", messageId: 41 }));
    await fake.waitFor(
      (c) => c.path.endsWith("/sendMessage") && String((c.json as { chat_id: unknown }).chat_id) === String(ALICE),
    );
    const paused = await callTool(agent, "get_status");
    expect(paused.structuredContent).toMatchObject({
      agent: "ops-agent",
      state: "PAUSED",
      holdLevel: "principal",
      by: "agent",
      reason: "vacation",
      setBy: "alice",
      held: true,
      heldBecause: "agent_paused",
      counts: { outboxActions: expect.any(Number) },
    });
    expect(paused.content[0]!.text).toMatch(/PAUSED.*held/);
  });
});
