import { createChatEscalationMonitor } from "../../src/bot/main/escalation-wiring";
import { runKey } from "../../src/policy/ids";
import { type ChatHarness, OPS_AGENT_KEY } from "./chat-harness";
import { KEYS } from "./harness";

// Runs created and decided through the bot's public HTTP API, and the rows the tests assert on. Ids are the
// API's (the caller's); the rows are keyed by the stored, tenant-scoped id.
const stored = (id: string) => runKey("acme", id);

export const DESTINATION = "http://127.0.0.1:4000/actions"; // declared for ops-agent in holdfast.example.yaml

async function api(h: ChatHarness, path: string, key: string, body: unknown) {
  const response = await fetch(`${h.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** Creates a run waiting for rita (by default) and waits until its cards are posted. */
export async function createRunWithCards(
  h: ChatHarness,
  id: string,
  options: { reviewers?: string[]; deadline?: Date } = {},
) {
  const created = await api(h, "/v1/runs", OPS_AGENT_KEY, {
    id,
    agent: "ops-agent",
    operation: "send-invoice",
    destination: DESTINATION,
    packet: { invoice: { amount: 100, to: "acme-customer" }, evidence: ["quote.pdf", "po-7.pdf"] },
    reviewers: options.reviewers ?? ["rita"],
    deadline: (options.deadline ?? new Date(Date.now() + 3_600_000)).toISOString(),
  });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.json)}`);
  await h.chat.cards.sync(stored(id));
  return created.json as { id: string; version: number; digest: string };
}

/** Saves a changed packet (the next version) and waits until the cards followed. */
export async function saveChangedPacket(h: ChatHarness, id: string, amount: number) {
  const saved = await api(h, `/v1/runs/${id}/packet`, OPS_AGENT_KEY, {
    packet: { invoice: { amount, to: "acme-customer" }, evidence: ["quote.pdf"] },
  });
  if (saved.status !== 200) throw new Error(`save failed: ${JSON.stringify(saved.json)}`);
  await h.chat.cards.sync(stored(id));
  return saved.json as { version: number; digest: string };
}

export async function decideThroughApi(
  h: ChatHarness,
  id: string,
  body: { eventId: string; action: "approve" | "deny"; version: number; digest: string },
  as: keyof typeof KEYS = "rita",
) {
  const answer = await api(h, `/v1/runs/${id}/decisions`, KEYS[as], body);
  await h.chat.cards.sync(stored(id));
  return answer;
}

export const runRow = (h: ChatHarness, id: string) =>
  h.ctx.store.db.run.findUniqueOrThrow({ where: { id: stored(id) } });
export const decisionRows = (h: ChatHarness, id: string) =>
  h.ctx.store.db.decisionEvent.findMany({ where: { runId: stored(id) }, orderBy: { createdAt: "asc" } });
export const outboxRows = (h: ChatHarness, id: string) =>
  h.ctx.store.db.outboxItem.findMany({ where: { runId: stored(id) } });
export const cardRows = (h: ChatHarness, id: string) =>
  h.ctx.store.db.chatCard.findMany({
    where: { runId: stored(id) },
    orderBy: [{ version: "asc" }, { platform: "asc" }],
  });

/** Everything a refused click must leave alone. */
export async function runSnapshot(h: ChatHarness, id: string) {
  const run = await runRow(h, id);
  return {
    state: run.state,
    version: run.version,
    decisions: (await decisionRows(h, id)).length,
    outbox: (await outboxRows(h, id)).length,
    cards: (await cardRows(h, id)).map((c) => c.shows),
  };
}

/**
 * The escalation monitor on the chat harness's real publishers, with a clock `aheadMs` past now: ops-agent
 * has no `escalation:` block in the example, so its one level pings bob (secondary manager) after 4 h.
 */
export function chatMonitor(h: ChatHarness, aheadMs = 4 * 3_600_000 + 60_000) {
  const ctx = { ...h.ctx, now: () => new Date(Date.now() + aheadMs) };
  return createChatEscalationMonitor(ctx, {
    publishers: h.chat.publishers,
    publicUrl: "https://holdfast.example.test",
  });
}

/** The ping cards posted for the escalations of run `id`. */
export async function pingRows(h: ChatHarness, id: string) {
  const mine = await h.ctx.store.db.escalation.findMany({ where: { subject: stored(id) }, select: { id: true } });
  return h.ctx.store.db.escalationCard.findMany({
    where: { escalationId: { in: mine.map((m) => m.id) } },
    orderBy: { id: "asc" },
  });
}
