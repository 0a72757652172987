import { seesDeliveryDetail as detailRule, standingToward } from "../../../policy/access";
import { deliveryClass } from "../../../policy/delivery-class";
import { agentNameOf as agentName, runName } from "../../../policy/ids";
import { findDeciding, type StoredDecision } from "../../../store/approvals/decisions";
import type { RunRecord } from "../../../store/approvals/runs";
import type { Store } from "../../../store/connection/client";
import { type KnownUser, userName } from "../../../store/directory/directory";
import { userNames } from "../../../store/directory/users";
import { findRunDelivery } from "../../../store/outbox/review";
import type { OutboxItem } from "../../../store/outbox/types";
import { tenantStandingOf } from "../auth/standing";

/** What an agent, a reviewer or a chat card sees of an outbox item. */
export interface DeliveryView {
  key: string;
  state: OutboxItem["state"];
  destination: string;
  contract: string;
  digest: string | null;
  attempts: number;
  firstDispatchedAt: string | null;
  lastAttemptAt: string | null;
  lastResult: string | null;
  observedAt: string | null;
}

/** A run waiting for (or past) a human decision on a packet. `checkpoint` only when the agent named one. */
export interface ApprovalRunView {
  kind: "approval";
  id: string;
  agent: string;
  operation: string;
  destination: string;
  /** The approval state; the delivery state is `delivery.state`. */
  state: RunRecord["state"];
  version: number;
  digest: string;
  checkpoint?: string;
  vars: Record<string, unknown>;
  deadline: string | null;
  reviewers: string[];
  /** The decision that ended the wait, with the packet version it was made on (`version` has moved on since). */
  decision?: { eventId: string; action: string; result: string; version: number; by: string | null; at: string };
  delivery?: DeliveryView;
  updatedAt: string;
}

/** A run that only moves through the agent's named checkpoints (created by a state delta): no packet. */
export interface CheckpointRunView {
  kind: "checkpoint";
  id: string;
  agent: string;
  state: "active" | "completed";
  checkpoint: string;
  vars: Record<string, unknown>;
  updatedAt: string;
}

export type RunView = ApprovalRunView | CheckpointRunView;

/** State deltas create runs in these states; approval runs never are in them. */
const CHECKPOINT_STATES: readonly string[] = ["active", "completed"];

/** A run created by the agent's state deltas, with no packet to decide on. */
export const isCheckpointRun = (run: RunRecord): boolean => CHECKPOINT_STATES.includes(run.state) && !!run.checkpoint;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Whether a user sees the full `lastResult` of an agent's deliveries (policy/access.ts). */
export async function seesDeliveryDetail(store: Store, user: KnownUser, agentId: string): Promise<boolean> {
  return detailRule(standingToward(await tenantStandingOf(store, user), agentId));
}

/** `detail`: the full last result (principal, admin), or only its class. */
export function deliveryView(item: OutboxItem, detail = false): DeliveryView {
  return {
    key: item.id,
    state: item.state,
    destination: item.destination,
    contract: item.contract,
    digest: item.digest,
    attempts: item.attempts,
    firstDispatchedAt: iso(item.firstDispatchedAt),
    lastAttemptAt: iso(item.lastAttemptAt),
    lastResult: detail ? item.lastResult : deliveryClass(item.state, item.lastResult),
    observedAt: iso(item.observedAt),
  };
}

export async function runView(store: Store, run: RunRecord, detail = false): Promise<RunView> {
  if (isCheckpointRun(run) && run.checkpoint) {
    return {
      kind: "checkpoint",
      id: runName(run.tenantId, run.id),
      agent: agentName(run.agentId),
      state: run.state as CheckpointRunView["state"],
      checkpoint: run.checkpoint,
      vars: run.vars,
      updatedAt: run.updatedAt.toISOString(),
    };
  }
  return approvalRunView(store, run, detail);
}

/**
 * `detail` may still be under way (the reader's standing, read beside the view's own reads rather than before
 * them). `deciding`: the decision that moved the run, when the caller knows it already (a decision just made).
 */
export async function approvalRunView(
  store: Store,
  run: RunRecord,
  detail: boolean | Promise<boolean> = false,
  deciding?: StoredDecision,
): Promise<ApprovalRunView> {
  const [decided, delivery, names, seesDetail] = await Promise.all([
    deciding ?? findDeciding(store.db, run.id),
    findRunDelivery(store, run.id),
    userNames(store, run.reviewers),
    detail,
  ]);
  const reviewers = run.reviewers.map((id) => names.get(id) ?? id);
  return {
    kind: "approval",
    id: runName(run.tenantId, run.id),
    agent: agentName(run.agentId),
    operation: run.operation,
    destination: run.destination,
    state: run.state,
    version: run.version,
    digest: run.digest,
    ...(run.checkpoint ? { checkpoint: run.checkpoint } : {}),
    vars: run.vars,
    deadline: iso(run.deadline),
    reviewers,
    ...(decided
      ? {
          decision: {
            eventId: decided.eventId,
            action: decided.action,
            result: decided.result,
            version: decided.version,
            by: decided.actorId ? (names.get(decided.actorId) ?? (await userName(store.db, decided.actorId))) : null,
            at: decided.at.toISOString(),
          },
        }
      : {}),
    ...(delivery ? { delivery: deliveryView(delivery, seesDetail) } : {}),
    updatedAt: run.updatedAt.toISOString(),
  };
}
