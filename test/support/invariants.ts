import { INBOX_QUEUED } from "../../src/policy/states";
import type { Store } from "../../src/store/connection/client";
import { sleep } from "./deployment";
import type { EffectReceiver } from "./effect-receiver";

/** A span in which agent `agent` (its index) was paused: nothing of it may reach the receiver in it. */
export interface PausedWindow {
  agent: number;
  from: number;
  to: number;
}

export interface InvariantInput {
  store: Store;
  receiver: EffectReceiver;
  paused?: PausedWindow[];
  /** Trigger interval: consecutive occurrences of one trigger are this far apart (no gap, no double). */
  everyMs?: number;
  /** Control actions the scenario took (pause, resume): each must have its audit row. */
  controlActions?: number;
  /** How long to wait for the outbox to settle before checking (default 20 s). */
  settleMs?: number;
}

export interface InvariantReport {
  violations: string[];
  /** Items checked: outbox items, occurrences and events. */
  checked: number;
}

const DELIVERED = new Set(["ACKNOWLEDGED", "OBSERVED"]);
const SETTLED = new Set([...DELIVERED, "FAILED", "NEEDS_REVIEW", "ABANDONED"]);
const agentOfPath = (p: string): number | null => {
  const match = /^\/(?:t|act|agent)\/(\d+)/.exec(p);
  return match ? Number(match[1]) : null;
};

/**
 * Waits until nothing is in flight (no PLANNED or DISPATCHED item, open release, queued event or HELD
 * occurrence), or the time is up.
 */
async function settle(store: Store, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const open = await store.db.outboxItem.count({ where: { state: { in: ["PLANNED", "DISPATCHED"] } } });
    const releases = await store.db.release.count({ where: { state: { not: "DONE" } } });
    // An event queued behind one whose process died moves on at the next reconcile, not at once.
    const queued = await store.db.inboxEvent.count({ where: { state: { in: INBOX_QUEUED } } });
    // Slots a tick found missed are HELD until the release opened after its commit (or the orphaned-hold
    // recovery, after a crash in between) takes them: in flight as well.
    const held = await store.db.occurrence.count({ where: { state: "HELD" } });
    if (open === 0 && releases === 0 && queued === 0 && held === 0) return;
    await sleep(200);
  }
}

/**
 * The chaos suite's invariants, checked at the receiver and in the database (issue 23): each approved action
 * and each delivery applied exactly once or in NEEDS_REVIEW with its three facts; each occurrence of a trigger
 * once (no gap, no double); events of an agent once and in order (or in review: their webhook keeps no keys);
 * nothing of a paused agent sent while it was paused; an audit row for every control action. Returns
 * violations as words, not assertions, for the table.
 */
export async function checkInvariants(input: InvariantInput): Promise<InvariantReport> {
  const { store, receiver } = input;
  await settle(store, input.settleMs ?? 20_000);
  await sleep(300); // a duplicate in flight arrives before counting
  const violations: string[] = [];
  const calls = new Map<string, number>();
  for (const call of receiver.calls) calls.set(call.key, (calls.get(call.key) ?? 0) + 1);
  const items = await store.db.outboxItem.findMany();
  for (const item of items) {
    const sent = calls.get(item.id) ?? 0;
    const applied = receiver.applied.get(item.id) ?? 0;
    if (!SETTLED.has(item.state))
      violations.push(
        `${item.id}: still ${item.state} (attempts ${item.attempts}, next ${item.nextAttemptAt.toISOString()}, lease ${item.leaseExpiresAt?.toISOString() ?? "none"}, last ${item.lastResult ?? "-"}, checked ${new Date().toISOString()})`,
      );
    if (DELIVERED.has(item.state) && applied !== 1)
      violations.push(`${item.id}: ${item.state} but applied ${applied}x`);
    if (item.contract === "none" && sent > 1)
      violations.push(`${item.id}: sent ${sent}x to a destination without keys`);
    if (item.contract !== "none" && applied > 1) violations.push(`${item.id}: applied ${applied}x`);
    if (
      item.state === "NEEDS_REVIEW" &&
      (!item.destination || !item.lastResult || (item.kind === "action" && !item.digest))
    )
      violations.push(`${item.id}: NEEDS_REVIEW without its facts`);
  }
  const known = new Set(items.map((i) => i.id));
  for (const key of calls.keys()) if (!known.has(key)) violations.push(`${key}: received, but no outbox item`);

  for (const window of input.paused ?? []) {
    const during = receiver.calls.filter(
      (c) => agentOfPath(c.path) === window.agent && c.at >= window.from && c.at < window.to,
    );
    for (const c of during)
      violations.push(`${c.key}: sent to paused agent ${window.agent} at +${c.at - window.from} ms`);
  }

  const occurrences = await store.db.occurrence.findMany({ orderBy: { dueAt: "asc" } });
  const byTrigger = new Map<string, typeof occurrences>();
  for (const o of occurrences) byTrigger.set(o.triggerId, [...(byTrigger.get(o.triggerId) ?? []), o]);
  for (const [trigger, rows] of byTrigger) {
    for (let k = 1; k < rows.length && input.everyMs; k++) {
      const step = rows[k]!.dueAt.getTime() - rows[k - 1]!.dueAt.getTime();
      if (step !== input.everyMs)
        violations.push(`${trigger}: ${step} ms between due times at ${rows[k]!.dueAt.toISOString()}`);
    }
    for (const o of rows) {
      if (o.state === "HELD") violations.push(`${o.id}: still HELD`);
      if ((o.state === "PLANNED" || o.state === "RELEASED") && !o.outboxId)
        violations.push(`${o.id}: ${o.state} without a delivery`);
    }
  }

  const events = await store.db.inboxEvent.findMany({ orderBy: { seq: "asc" } });
  // An event's webhook keeps no keys (contract none): a delivery in doubt (its process died after marking it
  // DISPATCHED) goes to review, never out again; with its facts (checked above) it is accounted for, not lost.
  const inReview = items.filter((i) => i.state === "NEEDS_REVIEW").map((i) => i.id);
  const reviewed = (suffix: string) => inReview.some((id) => id.endsWith(suffix));
  const byAgent = new Map<string, string[]>();
  for (const e of events) {
    const suffix = `:event:${e.eventId}`;
    if (!reviewed(suffix)) byAgent.set(e.agentId, [...(byAgent.get(e.agentId) ?? []), suffix]);
  }
  const firstSeen = [...new Set(receiver.calls.map((c) => c.key))];
  for (const [agent, suffixes] of byAgent) {
    // Event ids are unique across the scenario's agents, so the suffix names the event.
    const received = firstSeen.filter((k) => suffixes.some((x) => k.endsWith(x)));
    if (received.length !== suffixes.length)
      violations.push(`${agent}: ${received.length} of ${suffixes.length} events delivered`);
    else if (received.some((k, i) => !k.endsWith(suffixes[i]!))) violations.push(`${agent}: events out of order`);
  }

  if (input.controlActions !== undefined) {
    const rows = await store.db.controlAudit.count();
    if (rows < input.controlActions) violations.push(`${rows} audit rows for ${input.controlActions} control actions`);
  }
  return { violations, checked: items.length + occurrences.length + events.length };
}
