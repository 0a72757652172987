import pino from "pino";
import type { HandlerContext } from "../../src/bot/app/context";
import type { EscalationMonitor } from "../../src/bot/app/escalation/monitor-tick";
import { HoldfastEvents } from "../../src/bot/app/events";
import { loadDirectoryFile } from "../../src/bot/main/config/directory-file";
import { type EscalationBlock, resolveEscalation } from "../../src/bot/main/config/escalation-config";
import { createChatEscalationMonitor } from "../../src/bot/main/escalation-wiring";
import type { Card, CardPublisher, ChatRef, Platform } from "../../src/bot/surfaces/chat/types";
import { agentScope } from "../../src/policy/ids";
import { createRun } from "../../src/store/approvals/runs";
import { openStore, type Provider, type Store } from "../../src/store/connection/client";
import { syncDirectory } from "../../src/store/directory/directory";
import { createTestDatabase, type TestDatabase } from "./databases";
import { EXAMPLE_CONFIG } from "./harness";

export const OPS = "acme:ops-agent";
export const PUBLIC_URL = "https://holdfast.example.test";
export const MIN = 60_000;

/** Issue 15's example levels, with short delays: bob at 10 min, ada (admins) 1 h later, reminders every 30 min. */
export const TEST_ESCALATION: EscalationBlock = {
  approvalAfter: 10 * MIN,
  pausedAfter: 10 * MIN,
  reviewAfter: 10 * MIN,
  deliveryAfter: 10 * MIN,
  levels: [{ notify: ["secondaryManager"] }, { after: 60 * MIN, notify: ["admins"] }],
  repeat: 30 * MIN,
};

/** A naive platform: every post and edit is recorded as it comes, nothing is deduplicated. */
export interface RecordingPlatform extends CardPublisher {
  posts: Array<{ channelId: string; card: Card; ref: ChatRef }>;
  edits: Array<{ ref: ChatRef; card: Card }>;
}

export function recordingPlatform(platform: Platform): RecordingPlatform {
  let n = 0;
  const posts: RecordingPlatform["posts"] = [];
  const edits: RecordingPlatform["edits"] = [];
  return {
    posts,
    edits,
    openDirect: async (user) => `dm-${platform}-${user}`,
    async post(channelId, card) {
      const ref = { channelId, messageId: `${platform}-m${++n}` };
      posts.push({ channelId, card, ref });
      return ref;
    },
    async edit(ref, card) {
      edits.push({ ref, card });
    },
    say: async (channelId) => ({ channelId, messageId: `${platform}-m${++n}` }),
  };
}

/** One bot process's escalation part: its own store on the shared database, its own events, one clock. */
export interface MonitorProcess {
  ctx: HandlerContext;
  monitor: EscalationMonitor;
  events: Array<[string, unknown]>;
  close(): Promise<void>;
}

export interface EscalationHarness {
  db: TestDatabase;
  clock: { now: Date; advance(ms: number): void; set(at: Date): void };
  slack: RecordingPlatform;
  telegram: RecordingPlatform;
  /** A monitor process; `chat: false` starts it with no chat platform, `log` captures its log. */
  start(options?: { chat?: boolean; log?: pino.Logger }): Promise<MonitorProcess>;
  /** Syncs the example directory with this escalation block for ops-agent. */
  configure(block: EscalationBlock): Promise<void>;
  close(): Promise<void>;
}

export async function createEscalationHarness(provider: Provider, start: Date): Promise<EscalationHarness> {
  const db = await createTestDatabase(provider);
  let now = start.getTime();
  const slack = recordingPlatform("slack");
  const telegram = recordingPlatform("telegram");
  const processes: MonitorProcess[] = [];
  const harness: EscalationHarness = {
    db,
    clock: {
      get now() {
        return new Date(now);
      },
      advance(ms) {
        now += ms;
      },
      set(at) {
        now = at.getTime();
      },
    },
    slack,
    telegram,
    async start(options = {}) {
      const store: Store = await openStore(db.url);
      const events = new HoldfastEvents();
      const seen: Array<[string, unknown]> = [];
      events.on("escalation.sent", (level) => seen.push(["sent", level]));
      events.on("escalation.suppressed", (reason) => seen.push(["suppressed", reason]));
      const log = options.log ?? pino({ level: "silent" });
      const ctx: HandlerContext = { store, log, now: () => new Date(now), events };
      const publishers = options.chat === false ? {} : { slack, telegram };
      const monitor = createChatEscalationMonitor(ctx, { publishers, publicUrl: PUBLIC_URL });
      const proc = { ctx, monitor, events: seen, close: () => store.close() };
      processes.push(proc);
      return proc;
    },
    async configure(block) {
      const spec = loadDirectoryFile(EXAMPLE_CONFIG);
      const agent = spec.tenants.find((t) => t.id === "acme")!.agents.find((a) => a.name === "ops-agent")!;
      agent.settings = { ...agent.settings, escalation: resolveEscalation(undefined, block, true) };
      await syncDirectory(db.store, spec);
    },
    async close() {
      for (const p of processes.splice(0)) await p.close().catch(() => {});
      await db.drop();
    },
  };
  await harness.configure(TEST_ESCALATION);
  return harness;
}

export type Kind = "approval" | "paused" | "review" | "delivery";
export const KINDS: Kind[] = ["approval", "paused", "review", "delivery"];

export const RUN = "acme:r-esc-1";
export const ACTION_KEY = `${RUN}:1:send-invoice`;
const DESTINATION = "http://127.0.0.1:4000/actions";

/** Makes one item of `kind` that has been waiting since `since`, as the bot's own code would leave it. */
export async function makeWait(db: TestDatabase, kind: Kind, since: Date): Promise<void> {
  const { db: prisma } = db.store;
  if (kind === "approval" || kind === "paused") {
    await createRun(prisma, {
      id: RUN,
      tenantId: "acme",
      agentId: OPS,
      operation: "send-invoice",
      destination: DESTINATION,
      packet: JSON.stringify({ invoice: { amount: 100 } }),
      digest: `sha256:${"ab".repeat(32)}`,
      checkpoint: null,
      deadline: new Date(since.getTime() + 48 * 3_600_000),
      escalateAfterSeconds: null,
      reviewers: ["acme:rita"],
    });
    await prisma.packetVersion.updateMany({ where: { runId: RUN }, data: { createdAt: since } });
  }
  if (kind === "paused") {
    // The vacation case: paused by the principal while a run waits. Its approval escalates too, on its own.
    await prisma.control.update({
      where: { scope: agentScope(OPS) },
      data: { state: "PAUSED", holdLevel: "principal", reason: "vacation", setBy: "acme:alice", setAt: since },
    });
  }
  if (kind === "review" || kind === "delivery") {
    await prisma.outboxItem.create({
      data: {
        id: ACTION_KEY,
        kind: "action",
        tenantId: "acme",
        agentId: OPS,
        runId: RUN,
        digest: `sha256:${"cd".repeat(32)}`,
        destination: DESTINATION,
        contract: "none",
        payload: "{}",
        state: kind === "review" ? "NEEDS_REVIEW" : "PLANNED",
        attempts: 1,
        lastAttemptAt: since,
        lastResult: "no answer (timeout)",
        createdAt: since,
        updatedAt: since,
      },
    });
  }
}

/** Ends the wait the way the product does for that kind. */
export async function endWait(db: TestDatabase, kind: Kind, at: Date): Promise<void> {
  const { db: prisma } = db.store;
  if (kind === "approval") {
    await prisma.run.update({ where: { id: RUN }, data: { state: "approved", decidedBy: "acme:rita", decidedAt: at } });
  } else if (kind === "paused") {
    await prisma.control.update({ where: { scope: agentScope(OPS) }, data: { state: "RUNNING", holdLevel: "none" } });
  } else {
    await prisma.outboxItem.update({ where: { id: ACTION_KEY }, data: { state: "OBSERVED" } });
  }
}

/** The ping cards of one kind posted to one channel. */
export const pingsTo = (p: RecordingPlatform, channelId: string, title: string) =>
  p.posts.filter((x) => x.channelId === channelId && x.card.title.includes(title));

export const TITLE: Record<Kind, string> = {
  approval: "an approval waits",
  paused: "a paused agent has work waiting",
  review: "a delivery needs review",
  delivery: "an action is not delivered",
};

/** bob (secondary manager) and ada (admin) DMs on each recording platform. */
export const BOB = { slack: "dm-slack-U0BOB", telegram: "dm-telegram-7000005" };
export const ADA = { slack: "dm-slack-U0ADA", telegram: "dm-telegram-7000001" };
