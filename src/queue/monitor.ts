import { MONITOR_SCHEDULER } from "../policy/ids";
import type { QueueComponentOptions } from "./base";
import { type RepeatingJob, startRepeatingJob } from "./repeating-job";

export interface MonitorQueueOptions extends QueueComponentOptions {
  /** How often a tick is due (HOLDFAST_MONITOR_INTERVAL). */
  everyMs: number;
  /** One tick's work; correct when several processes tick at once (the database decides). */
  onTick: () => Promise<unknown>;
}

export type MonitorQueue = RepeatingJob;

/**
 * The stale-wait monitor as one job scheduler per deployment. It does not read the pause gate: a paused
 * agent is what it watches.
 */
export function startMonitorQueue(options: MonitorQueueOptions): Promise<MonitorQueue> {
  return startRepeatingJob({
    ...options,
    name: MONITOR_SCHEDULER,
    run: options.onTick,
    failedMessage: "monitor tick failed",
  });
}
