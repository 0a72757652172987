import fs from "node:fs";
import { load } from "js-yaml";
import { userId } from "../../../policy/ids";
import { findAgent, findUserById, type KnownAgent } from "../../../store/directory/directory";
import { createRunForAgent } from "../approvals/create-run";
import { destinationContract } from "../approvals/destinations";
import { createSignInPath } from "../auth/console-sessions";
import type { HandlerContext } from "../context";
import { acceptEvent } from "../held/receive-event";
import { registerTrigger } from "../held/triggers";

/** What the offline demo seeds, by fixed ids, so a restart finds it all in place instead of adding more. */
export const DEMO = {
  tenant: "acme",
  agent: "ops-agent",
  trigger: "demo-heartbeat",
  run: "demo-welcome-email",
  event: "demo-event-1",
  receiverPath: "/demo/receiver",
} as const;

export interface DemoSeed {
  /** Which example config file (its users' demo keys are named in the start line). */
  configFile: string;
  /** The console's address, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
}

/**
 * Seeds the offline demo: ops-agent's trigger every 30 s to the built-in demo receiver, one approval waiting
 * for rita, one inbound event. Idempotent: the trigger is upserted, the run and the event are created under
 * fixed ids (a second start finds them and adds nothing). Returns the one line to log: the console URL,
 * a one-time sign-in link for alice, and how to sign in as the others (and whether it seeded).
 */
export async function seedDemo(ctx: HandlerContext, seed: DemoSeed): Promise<{ seeded: boolean; line: string }> {
  const agent = await findAgent(ctx.store.db, DEMO.tenant, DEMO.agent);
  const receiver = `${seed.baseUrl}${DEMO.receiverPath}`;
  // Holdfast sends only where config says: the example declares the receiver at http://127.0.0.1:${PORT}.
  if (!agent || !destinationContract(agent, receiver)) {
    return { seeded: false, line: `demo not seeded: the example config declares no destination ${receiver}` };
  }
  await seedWork(ctx, agent, receiver);
  const alice = await findUserById(ctx.store.db, userId(DEMO.tenant, "alice"));
  const link = alice ? `${seed.baseUrl}${await createSignInPath(ctx, alice)}` : `${seed.baseUrl}/sign-in`;
  const line = `demo ready: open the console at ${seed.baseUrl}/ — sign in as alice with ${link} (works once, for 10 minutes); as the others with their demo key at ${seed.baseUrl}/sign-in: ${demoKeys(seed.configFile)}`;
  return { seeded: true, line };
}

async function seedWork(ctx: HandlerContext, agent: KnownAgent, receiver: string): Promise<void> {
  await registerTrigger(ctx, agent, {
    key: DEMO.trigger,
    everyMs: 30_000,
    cron: null,
    tz: null,
    payload: { demo: true, task: "check the on-call inbox" },
    destination: receiver,
    misfire: "coalesce",
  });
  await createRunForAgent(ctx, {
    agent,
    id: DEMO.run,
    operation: "send-welcome-email",
    destination: receiver,
    packet: {
      to: "new.hire@example.com",
      subject: "Welcome to Acme",
      body: "Your first day is Monday; IT has your laptop ready.",
      evidence: ["offer-letter-signed.pdf", { hrTicket: "HR-1042" }],
    },
    reviewers: ["rita"],
    deadline: new Date(ctx.now().getTime() + 7 * 24 * 3600 * 1000),
  });
  await acceptEvent(ctx, agent, {
    eventId: DEMO.event,
    type: "documents.signed",
    payload: { employee: "new.hire@example.com", documents: ["contract", "nda"] },
  });
}

/** "rita (demo-key-acme-rita-0004), ..." from the example file: the demo keys people type into the form. */
function demoKeys(configFile: string): string {
  const doc = load(fs.readFileSync(configFile, "utf8")) as {
    tenants?: Record<string, { users?: Record<string, { apiKey?: string }> }>;
  };
  const users = doc.tenants?.[DEMO.tenant]?.users ?? {};
  return Object.entries(users)
    .filter(([name, u]) => name !== "alice" && u.apiKey)
    .map(([name, u]) => `${name} ${u.apiKey}`)
    .join(", ");
}
