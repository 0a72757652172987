import { type Cadence, nextDueAfter } from "./schedule";

/** Due times sampled to find a cron's shortest gap: enough for every pattern that fires in bursts within an hour. */
const CRON_SAMPLES = 120;

/**
 * The shortest time between two consecutive due times of a cadence, from `from` on. An interval is its own
 * gap; a cron is sampled, so a pattern that fires in bursts (say `* * * * * *` or `0-30 * * * * *`) is
 * measured by its densest part.
 */
export function shortestGapMs(cadence: Cadence, from: Date): number {
  if (cadence.kind === "every") return cadence.everyMs;
  let previous = nextDueAfter(cadence, from);
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < CRON_SAMPLES; i++) {
    const next = nextDueAfter(cadence, previous);
    shortest = Math.min(shortest, next.getTime() - previous.getTime());
    previous = next;
  }
  return shortest;
}
