import { agentScope, runName } from "../../../policy/ids";
import { countWaitingRuns, findRun } from "../../../store/approvals/runs";
import type { Store } from "../../../store/connection/client";
import { readControl } from "../../../store/control/change";
import type { KnownAgent } from "../../../store/directory/directory";
import { userNames } from "../../../store/directory/users";
import type { StoredEscalation } from "../../../store/escalations/records";
import { countHeldWork, type HeldCounts } from "../../../store/held/counts";
import { findOutboxItem } from "../../../store/outbox/marks";
import type { OutboxItem } from "../../../store/outbox/types";

/**
 * What a ping says about its item, as data: the chat surface puts it into words (surfaces/chat/ping-card.ts).
 * People are named; runs carry the name the API gives them.
 */
export type ItemFacts =
  | {
      kind: "approval";
      run: string;
      operation: string;
      version: number;
      digest: string;
      reviewers: string[];
    }
  | {
      kind: "paused";
      agent: string;
      reason: string | null;
      principal: string[];
      waitingRuns: number;
      held: Pick<HeldCounts, "occurrences" | "inboundEvents" | "outboxActions" | "needsReview">;
    }
  | {
      kind: "review" | "delivery";
      agent: string;
      principal: string[];
      outbox: Pick<
        OutboxItem,
        "id" | "state" | "digest" | "destination" | "attempts" | "lastAttemptAt" | "lastResult" | "nextAttemptAt"
      >;
      /** The approved run (its API name) and who approved it; null for a delivery without a run. */
      run: string | null;
      approver: string | null;
    };

type Item = Pick<StoredEscalation, "kind" | "subject" | "tenantId">;

const names = async (store: Store, ids: readonly string[]) => {
  const map = await userNames(store, ids);
  return ids.map((id) => map.get(id) ?? id);
};

const principalOf = (store: Store, agent: KnownAgent) => names(store, agent.principalId ? [agent.principalId] : []);

/** Reads the item's facts now; null when it no longer exists. Agent-supplied values are escaped by the adapters. */
export async function itemFacts(store: Store, item: Item, agent: KnownAgent): Promise<ItemFacts | null> {
  const { db } = store;
  switch (item.kind) {
    case "approval": {
      const run = await findRun(db, item.subject);
      if (!run) return null;
      const { operation, version, digest } = run;
      const reviewers = await names(store, run.reviewers);
      return { kind: "approval", run: runName(run.tenantId, run.id), operation, version, digest, reviewers };
    }
    case "paused": {
      const control = await readControl(db, agentScope(agent.id));
      if (!control) return null;
      const held = await countHeldWork(store, agent.id);
      const waitingRuns = await countWaitingRuns(db, agent.id);
      const principal = await principalOf(store, agent);
      return { kind: "paused", agent: agent.name, reason: control.reason, principal, waitingRuns, held };
    }
    case "review":
    case "delivery": {
      const outbox = await findOutboxItem(db, item.subject);
      if (!outbox) return null;
      const run = outbox.runId ? await findRun(db, outbox.runId) : null;
      const approver = run?.decidedBy ? (await names(store, [run.decidedBy]))[0]! : null;
      const principal = await principalOf(store, agent);
      const runId = run && runName(run.tenantId, run.id);
      return { kind: item.kind, agent: agent.name, principal, outbox, run: runId, approver };
    }
  }
}

/** How an escalation's item ended, as data: the chat surface words it into the settled card's footer. */
export type Resolution =
  | { kind: "run_gone" | "paused_over" | "delivery_gone" }
  | { kind: "superseded"; version: number }
  | { kind: "decided"; state: string; by: string | null; at: Date | null }
  | { kind: "delivery"; state: string };

export async function resolutionOf(store: Store, item: Item & { itemVersion: number }): Promise<Resolution> {
  const { db } = store;
  if (item.kind === "approval") {
    const run = await findRun(db, item.subject);
    if (!run) return { kind: "run_gone" };
    if (run.state === "waiting") return { kind: "superseded", version: run.version };
    const by = run.decidedBy ? (await names(store, [run.decidedBy]))[0]! : null;
    return { kind: "decided", state: run.state, by, at: run.decidedAt };
  }
  if (item.kind === "paused") return { kind: "paused_over" };
  const outbox = await findOutboxItem(db, item.subject);
  return outbox ? { kind: "delivery", state: outbox.state } : { kind: "delivery_gone" };
}
