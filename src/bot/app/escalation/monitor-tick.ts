import { firstDueAt, nextStep, snapshotPolicy } from "../../../policy/escalation";
import type { KnownAgent } from "../../../store/directory/directory";
import { findAgentById } from "../../../store/directory/directory";
import { notifyResolver } from "../../../store/escalations/audience";
import { listResolvedWithOpenCards } from "../../../store/escalations/cards";
import { startEscalation } from "../../../store/escalations/ledger";
import { recordMonitorTick } from "../../../store/escalations/monitor-tick";
import {
  findEscalation,
  listActiveEscalations,
  listSteps,
  type StoredEscalation,
} from "../../../store/escalations/records";
import { listWaits, type Wait } from "../../../store/escalations/stale-waits";
import { rememberDirectChannels } from "../cards/card-targets";
import type { HandlerContext } from "../context";
import type { PingDeps } from "./ports";
import { sendPing } from "./send-ping";
import { settleEscalation, settlePingCards } from "./settle";

export interface EscalationMonitor {
  /**
   * One pass: resolve what stopped waiting, start what became stale, send what is due. Called while a pass
   * runs, it resolves after the next one, which starts when the running one ends.
   */
  tick(): Promise<void>;
}

/**
 * The monitor's per-tick work. Everything it decides is read from the database at the tick (waits, the
 * ledger, acknowledgements), and every write is conditional (start, step, resolve), so any number of
 * processes may tick at once, after any restart or Redis loss, and each level still pings once.
 */
export function createEscalationMonitor<C>(ctx: HandlerContext, deps: PingDeps<C>): EscalationMonitor {
  const ping: PingDeps<C> = { ...deps, publishers: rememberDirectChannels(deps.publishers) };
  const { db } = ctx.store;

  async function startDue(waits: Wait[], activeKeys: Set<string>, agentOf: (id: string) => Promise<KnownAgent | null>) {
    const started: StoredEscalation[] = [];
    const now = ctx.now();
    for (const wait of waits) {
      if (activeKeys.has(wait.itemKey)) continue;
      const agent = await agentOf(wait.agentId);
      if (!agent || agent.settings.escalation.levels.length === 0) continue;
      // Whether it is due needs only the delays; who it notifies is read once it is (most waits are not).
      const delays = snapshotPolicy(agent.settings.escalation, wait.kind, wait.ownDelayMs, () => []);
      const due = firstDueAt(delays, wait.since);
      if (!due || due > now) continue;
      const resolve = await notifyResolver(db, agent);
      const policy = snapshotPolicy(agent.settings.escalation, wait.kind, wait.ownDelayMs, resolve);
      const { ownDelayMs: _, ...item } = wait;
      const id = await startEscalation(ctx.store, { ...item, policy }, now);
      const escalation = id && (await findEscalation(db, id));
      if (escalation) started.push(escalation);
    }
    return started;
  }

  async function pass() {
    await recordMonitorTick(ctx.store, ctx.now());
    const agents = new Map<string, Promise<KnownAgent | null>>();
    const agentOf = (id: string) => agents.get(id) ?? agents.set(id, findAgentById(db, id)).get(id)!;
    const waits = await listWaits(ctx.store);
    const byKey = new Map(waits.map((w) => [w.itemKey, w]));
    const live: StoredEscalation[] = [];
    for (const escalation of await listActiveEscalations(db)) {
      const wait = byKey.get(escalation.itemKey);
      if (wait && wait.itemVersion === escalation.itemVersion) live.push(escalation);
      else await settleEscalation(ctx, ping, escalation);
    }
    live.push(...(await startDue(waits, new Set(live.map((e) => e.itemKey)), agentOf)));
    const ledgers = await listSteps(
      db,
      live.map((e) => e.id),
    );
    const now = ctx.now();
    for (const escalation of live) {
      const ledger = ledgers.get(escalation.id) ?? [];
      const next = nextStep(escalation.policy, escalation.since, ledger, escalation.ackLevel, now);
      const agent = await agentOf(escalation.agentId);
      if (next.kind === "send" && agent) await sendPing(ctx, ping, escalation, agent, next.step);
      else if (next.kind === "wait" && next.quiet) ctx.events.emit("escalation.suppressed", "quiet_hours");
      else if (
        escalation.ackLevel !== null &&
        nextStep(escalation.policy, escalation.since, ledger, null, now).kind === "send"
      )
        ctx.events.emit("escalation.suppressed", "acknowledged");
    }
    // Cards of escalations resolved elsewhere whose edit failed or was cut off by a crash.
    for (const id of await listResolvedWithOpenCards(db)) {
      const escalation = await findEscalation(db, id);
      if (escalation?.resolution) await settlePingCards(ctx, ping, id, escalation.resolution);
    }
  }

  return { tick: onePassAtATime(pass) };
}

/**
 * One pass at a time in this process. Hints to look soon (a decision, a resume, a release step) come every
 * 250 ms in a burst, and a pass on a busy database takes longer than that: in `npm run bench:load` dozens of
 * passes overlapped (a heap snapshot held 58 copies of 1,000 deliveries' waits and 37 of 1,000 approvals'), each
 * reading every wait again. A tick asked for while a pass runs is one more pass after it (however many were
 * asked for), and resolves with that one.
 */
function onePassAtATime(pass: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await pass();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
