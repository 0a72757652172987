import fs from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import type { Store } from "../../src/store/connection/client";
import type { BotProcess } from "./bot-process";
import type { EffectReceiver } from "./effect-receiver";

/** A directory of one tenant `acme`: admin ada, reviewer rita, and `agents` agents whose URLs point at a receiver. */
export const ADA = "deploy-admin-key-0001";
export const RITA = "deploy-reviewer-key-0002";
export const agentKey = (i: number) => `deploy-agent-key-${String(i).padStart(4, "0")}`;
export const agentName = (i: number) => `agent-${String(i).padStart(2, "0")}`;
/** A tick destination (no key retention: a delivery in doubt goes to review) and an action's (keys kept). */
export const tickUrl = (receiver: EffectReceiver, i: number) => `${receiver.url}/t/${i}`;
export const actUrl = (receiver: EffectReceiver, i: number) => `${receiver.url}/act/${i}`;

export function writeDirectory(dir: string, receiver: EffectReceiver, agents: number): string {
  const all: Record<string, unknown> = {};
  for (let i = 0; i < agents; i++) {
    all[agentName(i)] = {
      principal: "ada",
      reviewers: ["rita"],
      webhook: `${receiver.url}/agent/${i}`,
      agentKey: agentKey(i),
      limits: { minInterval: 50 }, // test-speed trigger intervals
      destinations: { [tickUrl(receiver, i)]: "none", [actUrl(receiver, i)]: "key-retained 24h" },
    };
  }
  const config = {
    tenants: { acme: { admins: ["ada"], users: { ada: { apiKey: ADA }, rita: { apiKey: RITA } }, agents: all } },
  };
  const file = path.join(dir, "holdfast.yaml");
  fs.writeFileSync(file, stringify(config));
  return file;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One API call; a status of 300 or more throws with the body. */
export async function api(
  bot: BotProcess | string,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<Record<string, any>> {
  const base = typeof bot === "string" ? bot : bot.url;
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, any>;
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Pauses agent `i` and waits until its control reads PAUSED (nothing in flight); resolves with that moment. */
export async function pauseAgent(bot: BotProcess | string, i: number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let control = await api(bot, ADA, "POST", `/v1/agents/${agentName(i)}/pause`, { reason: "test" });
  while (control.state !== "PAUSED") {
    if (Date.now() > deadline) throw new Error(`agent ${i} did not read PAUSED: ${JSON.stringify(control)}`);
    await sleep(100);
    control = await api(bot, ADA, "GET", `/v1/agents/${agentName(i)}/control`);
  }
  return Date.now();
}

/** Resumes agent `i`; resolves with the release's id. */
export async function resumeAgent(bot: BotProcess | string, i: number): Promise<string> {
  return (await api(bot, ADA, "POST", `/v1/agents/${agentName(i)}/resume`, {})).releaseId as string;
}

/**
 * Waits until every release in the database is DONE and no running agent has HELD occurrences left: a
 * catch-up after a Redis outage records the slots it skipped as HELD and opens a release for them a moment
 * later, so "every release DONE" alone can be read in between.
 */
export async function releasesDone(store: Store, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await store.db.release.count({ where: { state: { not: "DONE" } } });
    const paused = await store.db.control.findMany({ where: { state: { not: "RUNNING" } } });
    const agents = paused.flatMap((c) => (c.agentId ? [c.agentId] : []));
    const tenants = paused.flatMap((c) => (!c.agentId && c.scope.startsWith("tenant:") ? [c.tenantId] : []));
    const wholeDeployment = paused.some((c) => !c.agentId && !c.scope.startsWith("tenant:"));
    const held = wholeDeployment
      ? 0
      : await store.db.occurrence.count({
          where: { state: "HELD", agentId: { notIn: agents }, tenantId: { notIn: tenants } },
        });
    if (open === 0 && held === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `${open} release(s) not DONE and ${held} occurrence(s) of running agents HELD in ${timeoutMs} ms`,
      );
    await sleep(100);
  }
}
