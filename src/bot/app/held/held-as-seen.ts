import type { HeldCounts } from "../../../store/held/counts";

/**
 * The held counts as a person should read them: while a pause (the agent's or its tenant's) holds the agent, an
 * item waiting for its next attempt after a failed one waits for the resume as well, so it is held, not retrying.
 * While the agent runs it is retrying: no pause holds it.
 */
export function heldAsSeen(held: HeldCounts, paused: boolean): HeldCounts {
  if (!paused || held.retrying === 0) return held;
  return { ...held, outboxActions: held.outboxActions + held.retrying, retrying: 0 };
}
