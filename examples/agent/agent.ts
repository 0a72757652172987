// An example agent that Holdfast governs, over MCP: it asks whether it is paused before each step, asks a
// person to approve the one action that needs it, waits for the decision, and records its checkpoint.
//
//   npm start                 # the quick start's bot, in another terminal
//   npm run example:agent     # then approve in the console (rita) or in chat
//
// HOLDFAST_URL (default http://127.0.0.1:3000) and HOLDFAST_AGENT_KEY (default: the demo key of ops-agent).
import crypto from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const BASE_URL = process.env.HOLDFAST_URL ?? "http://127.0.0.1:3000";
const AGENT_KEY = process.env.HOLDFAST_AGENT_KEY ?? "demo-key-acme-ops-agent-0007";
/** How often a paused agent asks again whether it may go on. */
const PAUSE_POLL_MS = Number(process.env.HOLDFAST_PAUSE_POLL_MS ?? 5_000);
/** Declared for ops-agent in holdfast.example.yaml: the bot's demo receiver stands in for the mail service. */
const DESTINATION = process.env.HOLDFAST_DESTINATION ?? `${BASE_URL}/demo/receiver`;

// What the agent reads of the tools' answers (their structuredContent: the same JSON as the HTTP API's).
interface Status {
  agent: string;
  state: string;
  held: boolean;
  holdLevel: string;
  setBy: string | null;
  reason: string | null;
}
interface Run {
  id: string;
  state: "waiting" | "approved" | "denied" | "expired";
  version: number;
  digest: string;
  reviewers: string[];
  decision?: { action: string; by: string | null; at: string };
  delivery?: { state: string };
}
interface Checkpoint {
  id: string;
  checkpoint: string;
}
type Answer = { isError?: boolean; structuredContent?: unknown; content?: Array<{ text?: string }> };

const say = (line: string) => console.log(`[agent] ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const answer = (await client.callTool({ name, arguments: args })) as Answer;
  if (answer.isError) throw new Error(`${name} was refused: ${answer.content?.[0]?.text ?? "no reason given"}`);
  return answer.structuredContent as T;
}

/** Before each step: a paused agent does not act; it says so and asks again until it is resumed. */
async function untilRunning(client: Client, step: string): Promise<void> {
  let told = false;
  for (;;) {
    const status = await call<Status>(client, "get_status");
    if (!status.held) {
      if (told) say(`resumed: going on with ${step}`);
      return;
    }
    if (!told) {
      const who = status.setBy ? ` by ${status.setBy}` : "";
      say(`paused (${status.holdLevel} hold${who}: ${status.reason ?? "no reason"}); waiting before ${step}`);
      told = true;
    }
    await sleep(PAUSE_POLL_MS);
  }
}

/** wait_for_approval answers at its timeout with `waiting`: that is not a denial, so the agent asks again. */
async function decisionOf(client: Client, id: string): Promise<Run> {
  for (let waited = 0; ; waited += 30) {
    const run = await call<Run>(client, "wait_for_approval", { id, timeoutSeconds: 30 });
    if (run.state !== "waiting") return run;
    say(`still waiting for ${run.reviewers.join(", ")} (${waited + 30} s so far)`);
  }
}

async function main(): Promise<number> {
  const client = new Client({ name: "holdfast-example-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", BASE_URL), {
    requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } },
  });
  await client.connect(transport);
  try {
    const status = await call<Status>(client, "get_status");
    say(`connected to ${BASE_URL}/mcp as ${status.agent} (${status.state})`);
    const id = `welcome-${crypto.randomUUID().slice(0, 8)}`;

    await untilRunning(client, "the welcome email");
    const requested = await call<Run>(client, "request_approval", {
      id,
      operation: "send-welcome-email",
      destination: DESTINATION,
      packet: { to: "new.hire@acme.example", subject: "Welcome to Acme", body: "Your first day is Monday." },
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
      checkpoint: "START",
    });
    say(`requested approval ${requested.id} (version ${requested.version}, ${requested.digest.slice(0, 19)}...)`);
    say(`waiting for ${requested.reviewers.join(", ")}: approve it in the console or in chat`);

    const decided = await decisionOf(client, id);
    const { action, by, at } = decided.decision ?? {};
    say(`decision: ${decided.state}${by ? ` by ${by} at ${at}` : ""}${action ? ` (${action})` : ""}`);
    if (decided.state !== "approved") {
      say("not sending the welcome email");
      return 0;
    }
    say(`Holdfast delivers the approved packet to ${DESTINATION} (delivery ${decided.delivery?.state ?? "planned"})`);

    await untilRunning(client, "the checkpoint");
    const checkpoint = await call<Checkpoint>(client, "record_checkpoint", {
      runId: id,
      checkpoint: "WELCOME_SENT",
      set: { welcomeApprovedBy: by ?? null },
    });
    say(`checkpoint ${checkpoint.checkpoint} recorded for ${checkpoint.id}`);
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`[agent] ${error.message}`);
    process.exit(1);
  },
);
