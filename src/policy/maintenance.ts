import { afterUncertainOutcome, type ReceivingContract } from "./delivery";
import type { OutboxState } from "./states";

/**
 * Maintenance windows (design.md section 7): a process, or the whole deployment, goes
 * `RUNNING -> DRAINING -> QUIESCED -> STOPPED`; an effect whose outcome is unknown ends in `NEEDS_REVIEW`.
 * The names are the vocabulary of the API, the metrics and the audit: keep them as they are.
 */
export const MAINTENANCE_STATES = ["RUNNING", "DRAINING", "QUIESCED", "STOPPED"] as const;
export type MaintenanceState = (typeof MAINTENANCE_STATES)[number];
/** A window's record: its process (or deployment) state, and ENDED once a window was let go. */
export type WindowState = Exclude<MaintenanceState, "RUNNING"> | "ENDED";
/** The states of a window still in force. */
export const WINDOW_ACTIVE: WindowState[] = ["DRAINING", "QUIESCED"];
export type WindowScope = "instance" | "deployment";
export type PreviousShutdown = "clean" | "unclean" | null;

/** How often a process writes its heartbeat row by default (HOLDFAST_HEARTBEAT_INTERVAL). */
export const DEFAULT_HEARTBEAT_MS = 5_000;
/** A heartbeat older than this many intervals is a lost process. */
export const LOST_AFTER_INTERVALS = 3;

export const isLost = (row: { state: string; lastSeenAt: Date; heartbeatMs: number }, now: Date): boolean =>
  row.state !== "STOPPED" && now.getTime() - row.lastSeenAt.getTime() > LOST_AFTER_INTERVALS * row.heartbeatMs;

/** What `GET /v1/instances` calls a process: its recorded state, or `lost`. */
export const shownState = (row: { state: string; lastSeenAt: Date; heartbeatMs: number }, now: Date): string =>
  isLost(row, now) ? "lost" : row.state;

/**
 * What to do with an effect a stopped process had in flight, from its recorded state alone (design.md
 * section 6), never from the death of the process:
 * - PLANNED (intent only): dispatch again;
 * - DISPATCHED (sent, no receipt): retry with the same key while the contract still deduplicates, else look
 *   it up, else NEEDS_REVIEW;
 * - ACKNOWLEDGED (receipt recorded): reconcile through the lookup where there is one, else done;
 * - any final state: left alone.
 */
export type InFlightStep = "dispatch_again" | "retry_same_key" | "lookup" | "needs_review" | "reconcile" | "done";

export function classifyInFlight(
  state: OutboxState,
  contract: ReceivingContract,
  firstDispatchedAt: Date | null,
  now: Date,
): InFlightStep {
  if (state === "PLANNED") return "dispatch_again";
  if (state === "DISPATCHED") return afterUncertainOutcome(contract, firstDispatchedAt ?? new Date(0), now);
  if (state === "ACKNOWLEDGED") return contract.lookupUrl ? "reconcile" : "done";
  return "done";
}

/** The one lease-token shape: the owning run's id first, so a run's leases can be found after it died. */
export const ownedLeaseToken = (owner: string, random: string): string => (owner ? `${owner}/${random}` : random);
export const leaseTokenPrefix = (owner: string): string => `${owner}/`;
