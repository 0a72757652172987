import type { InFlightStep } from "../../../policy/maintenance";
import type { Classified } from "../../../queue/delivery/recovery";
import { findAgentById } from "../../../store/directory/directory";
import { type RecoveryReport, recordRecovery } from "../../../store/maintenance/instances";
import { auditMaintenance } from "../../../store/maintenance/windows";
import type { HandlerContext } from "../context";

/** A run that stopped without reaching STOPPED: found at the next start of its name, or lost to its peers. */
export interface StoppedRun {
  instance: string;
  bootId: string;
  startedAt: Date;
}

export interface UncleanDeps {
  /** Classifies what the run left (the delivery loop's recovery.ts). */
  classify(owner: string, since: Date): Promise<Classified[]>;
  /** `holdfast_unclean_boots_total`. */
  counted(): void;
  /** One chat message to each of these users (the principals of the agents concerned). */
  tell(userIds: string[], report: UncleanReport): Promise<void>;
}

export interface UncleanReport {
  instance: string;
  /** The process that found it (itself after a restart, or a peer for a lost instance). */
  by: string;
  counts: Partial<Record<InFlightStep, number>>;
  agents: string[];
}

/**
 * An unclean stop, found and classified once: each effect the run left is classified from its recorded
 * state (audited, one line each), the stop is recorded on its instance (so no other process classifies it
 * again), logged once at warn with its counts, counted, and told to the principals of the agents concerned.
 * False when another process had classified it already.
 */
export async function classifyUncleanStop(
  ctx: HandlerContext,
  deps: UncleanDeps,
  run: StoppedRun,
  by: string,
): Promise<UncleanReport | null> {
  const { db } = ctx.store;
  const classified = await deps.classify(run.bootId, run.startedAt);
  const counts: Partial<Record<InFlightStep, number>> = {};
  for (const c of classified) counts[c.step] = (counts[c.step] ?? 0) + 1;
  const at = ctx.now();
  const stored: RecoveryReport = {
    bootId: run.bootId,
    at: at.toISOString(),
    by,
    counts: counts as Record<string, number>,
  };
  if (!(await recordRecovery(db, run.instance, stored))) return null;
  await auditMaintenance(db, [
    { instance: run.instance, action: "unclean", note: JSON.stringify(counts), by, at },
    ...classified.map((c) => ({
      instance: run.instance,
      action: "classified" as const,
      subject: c.id,
      fromState: c.from,
      toState: c.to,
      note: `${c.step}: ${c.note}`,
      by,
      at,
    })),
  ]);
  const agents = [...new Set(classified.map((c) => c.agentId))].sort();
  const report: UncleanReport = { instance: run.instance, by, counts, agents };
  ctx.log.warn(
    { instance: run.instance, bootId: run.bootId, by, counts, agents },
    `unclean stop of ${run.instance} found: ${describeCounts(counts)}`,
  );
  deps.counted();
  const principals = new Set<string>();
  for (const agentId of agents) {
    const agent = await findAgentById(db, agentId);
    if (agent?.principalId) principals.add(agent.principalId);
  }
  if (principals.size) {
    await deps
      .tell([...principals], report)
      .catch((error: Error) =>
        ctx.log.warn({ instance: run.instance, err: error.message }, "unclean stop: chat message not posted"),
      );
  }
  return report;
}

const STEP_WORDS: Record<InFlightStep, string> = {
  dispatch_again: "dispatched again",
  retry_same_key: "retried with the same key",
  lookup: "looked up",
  needs_review: "need review",
  reconcile: "reconciled by lookup",
  done: "done",
};

/** "1 retried with the same key, 1 need review", or "nothing was in flight". */
export function describeCounts(counts: Partial<Record<InFlightStep, number>>): string {
  const parts = (Object.keys(STEP_WORDS) as InFlightStep[])
    .filter((s) => counts[s])
    .map((s) => `${counts[s]} ${STEP_WORDS[s]}`);
  return parts.length ? parts.join(", ") : "nothing was in flight";
}
