import { syncDirectory } from "../../src/store/directory/directory";
import { exampleDirectory } from "./agent-stand-in";
import { EXAMPLE_CONFIG, type Harness } from "./harness";

export const AGENT_KEY = "demo-key-acme-ops-agent-0007";
export const GLOBEX_AGENT_KEY = "demo-key-globex-agent-0002";

/** Re-syncs the example directory with these destinations declared for ops-agent. */
export async function declareDestinations(h: Harness, destinations: Record<string, string>): Promise<void> {
  const spec = await exampleDirectory(EXAMPLE_CONFIG);
  const agent = spec.tenants.find((t) => t.id === "acme")!.agents.find((a) => a.name === "ops-agent")!;
  agent.settings = { ...agent.settings, destinations };
  await syncDirectory(h.ctx.store, spec);
}

/** A request as the agent (its agent key), through the full HTTP stack. */
export async function asAgent(h: Harness, method: "GET" | "POST", url: string, body?: unknown, key = AGENT_KEY) {
  const response = await h.http.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    payload: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.statusCode, json: response.body ? JSON.parse(response.body) : null };
}

export interface RunSetup {
  id: string;
  destination: string;
  deadline: Date;
  reviewers?: string[];
  operation?: string;
  /** Packet versions to save after the first; the run ends waiting at version `versions`. Default 1. */
  versions?: number;
}

/** Creates a run through the API and saves changed packets until it waits at the wanted version. */
export async function createWaitingRun(h: Harness, setup: RunSetup) {
  const created = await asAgent(h, "POST", "/v1/runs", {
    id: setup.id,
    agent: "ops-agent",
    operation: setup.operation ?? "send-invoice",
    destination: setup.destination,
    packet: { invoice: { amount: 100, to: "acme-customer" }, evidence: ["quote.pdf"] },
    reviewers: setup.reviewers ?? ["rita"],
    deadline: setup.deadline.toISOString(),
  });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.json)}`);
  let run = created.json;
  for (let v = 2; v <= (setup.versions ?? 1); v++) {
    const saved = await asAgent(h, "POST", `/v1/runs/${setup.id}/packet`, {
      packet: { invoice: { amount: 100 * v, to: "acme-customer" }, evidence: ["quote.pdf"] },
    });
    if (saved.status !== 200) throw new Error(`packet save failed: ${JSON.stringify(saved.json)}`);
    run = saved.json;
  }
  return run as { id: string; version: number; digest: string; state: string };
}

export async function outboxCount(h: Harness, runId: string): Promise<number> {
  return h.ctx.store.db.outboxItem.count({ where: { runId } });
}
