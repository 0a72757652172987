/**
 * The state sets that many files ask about, each spelled once. Prisma `where` clauses take them as they are
 * (`state: { in: OUTBOX_UNFINISHED }`); SQL text takes them through `sqlList`, so a query and a `where`
 * clause cannot drift apart.
 */

export type OutboxState =
  | "PLANNED"
  | "DISPATCHED"
  | "ACKNOWLEDGED"
  | "OBSERVED"
  | "FAILED"
  | "NEEDS_REVIEW"
  | "ABANDONED";

/**
 * Still to be sent (a retry waits as PLANNED too), or sent and not answered yet. A lane waits for these, a
 * drain waits for their leases, and `/metrics` reports them as pending.
 */
export const OUTBOX_UNFINISHED: OutboxState[] = ["PLANNED", "DISPATCHED"];
/** Effect not confirmed: unfinished, or failed for good (the oldest is the "oldest undelivered action"). */
export const OUTBOX_UNDELIVERED: OutboxState[] = [...OUTBOX_UNFINISHED, "FAILED"];
/** Delivered: the destination answered yes, and perhaps the agent observed it since. */
export const OUTBOX_DELIVERED: OutboxState[] = ["ACKNOWLEDGED", "OBSERVED"];
/** Given up: failed for good, or abandoned by a person. */
export const OUTBOX_GIVEN_UP: OutboxState[] = ["FAILED", "ABANDONED"];
/** Settled: nothing more will be sent on its own (NEEDS_REVIEW waits for a person, not for the loop). */
export const OUTBOX_SETTLED: OutboxState[] = [...OUTBOX_DELIVERED, ...OUTBOX_GIVEN_UP, "NEEDS_REVIEW"];

/**
 * The states an agent's own reads ask for (held counts, the oldest wait, held actions, busy lanes), and the
 * only rows the `(agentId, state)` index holds (a partial index, prisma/schema.prisma, in this order): a row
 * leaves it when it is delivered or abandoned, so a delivery's marks touch few of its pages.
 */
export const OUTBOX_AGENT_INDEXED: OutboxState[] = [...OUTBOX_UNDELIVERED, "NEEDS_REVIEW"];

export type ControlState = "RUNNING" | "DRAINING" | "PAUSED";
/** Every state but RUNNING: the ones that hold outbound work (a list the `state` index can seek). */
export const NOT_RUNNING: ControlState[] = ["DRAINING", "PAUSED"];

/** PENDING | HELD | RELEASED (waiting their turn) | PLANNED (in the outbox) | DONE. */
export type InboxState = "PENDING" | "HELD" | "RELEASED" | "PLANNED" | "DONE";
/** Queued behind an earlier event of the agent, free to go when their turn comes. */
export const INBOX_QUEUED: InboxState[] = ["PENDING", "RELEASED"];
/** Not delivered to the agent yet and not in the outbox: held, or queued. */
export const INBOX_WAITING: InboxState[] = ["HELD", ...INBOX_QUEUED];
/** Work the event pump still has to do: queued, or in the outbox and not settled. */
export const INBOX_PUMPED: InboxState[] = [...INBOX_QUEUED, "PLANNED"];

/** A state set as SQL text, `('A', 'B')`, for `"state" IN ${sqlList(...)}`. The states are constants, never input. */
export const sqlList = (states: readonly string[]): string => `(${states.map((s) => `'${s}'`).join(", ")})`;
