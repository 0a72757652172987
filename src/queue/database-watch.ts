import type { Logger } from "pino";
import { isDatabaseConnectionLoss } from "../policy/database-unavailable";
import { pingDatabase, type Store } from "../store/connection/client";

/** How long after the database is back the failures of work caught by the outage still count as its part. */
const OUTAGE_TAIL_MS = 2_000;
const PROBE_MS = 250;

export interface DatabaseWatch {
  /**
   * Takes a failure. True when it is part of a database outage, which the watch reports once ("database is
   * unreachable", then "database is back" when it answers again): the caller then logs nothing of its own.
   */
  outage(error: { message?: string; code?: unknown }): boolean;
  readonly up: boolean;
  /** Resolves true once the database answers again (at once when it is up), or false after `timeoutMs`. */
  whenUp(timeoutMs: number): Promise<boolean>;
}

interface Shared extends DatabaseWatch {
  log: Logger;
}

const watches = new WeakMap<Store, Shared>();

/**
 * One watch per store in the process, shared by everything that works on it (the delivery claim, the
 * reconciler, the tick thread's recording), as the Redis watch is: an outage is one warn line when the
 * database goes and one when it answers again, however many loops notice it.
 */
export function watchDatabase(store: Store, log: Logger): DatabaseWatch {
  const existing = watches.get(store);
  if (existing) return existing;
  let up = true;
  let downSince = 0;
  let backAt = 0;
  let probe: NodeJS.Timeout | null = null;
  const waiting = new Set<() => void>();
  const back = () => {
    if (probe) clearInterval(probe);
    probe = null;
    up = true;
    backAt = Date.now();
    watch.log.warn({ downMs: backAt - downSince }, "database is back");
    for (const wake of waiting) wake();
    waiting.clear();
  };
  const watch: Shared = {
    log,
    get up() {
      return up;
    },
    whenUp(timeoutMs) {
      if (up) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(wake);
          resolve(false);
        }, timeoutMs);
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiting.add(wake);
      });
    },
    outage(error) {
      if (!up) return true;
      if (!isDatabaseConnectionLoss(error)) return Date.now() - backAt < OUTAGE_TAIL_MS && backAt > 0;
      up = false;
      downSince = Date.now();
      const line =
        String(error.message ?? "")
          .trim()
          .split("\n")
          .pop() ?? "";
      watch.log.warn({ err: line }, "database is unreachable");
      let probing = false;
      probe = setInterval(() => {
        if (probing) return;
        probing = true;
        pingDatabase(store)
          .then(back, () => {})
          .finally(() => {
            probing = false;
          });
      }, PROBE_MS);
      probe.unref();
      return true;
    },
  };
  watches.set(store, watch);
  return watch;
}

/**
 * Logs a failed step at warn, unless it is part of a database outage: the watch says that once each way, so an
 * outage is two lines however many steps it breaks.
 */
export function warnUnlessOutage(
  store: Store,
  log: Logger,
  error: Error,
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  if (!watchDatabase(store, log).outage(error)) log.warn({ ...fields, err: error.message }, msg);
}

/**
 * Runs a write that must not be lost to a database outage: a destination's answer is a fact about the world,
 * and lost, its item stays DISPATCHED under its lease, blocks its lane until the lease runs out, and then
 * counts as uncertain (sent again, or put in review for a destination that keeps no keys). A failure the watch
 * counts as an outage is tried again once the database answers, within `timeoutMs`; after that, or on any
 * other failure, the error is the caller's.
 */
export async function writeThroughOutage<T>(
  store: Store,
  log: Logger,
  write: () => Promise<T>,
  timeoutMs: number,
): Promise<T> {
  const watch = watchDatabase(store, log);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!watch.outage(error as Error) || !(await watch.whenUp(deadline - Date.now()))) throw error;
      // Just back: a moment before the next try, so the outage's tail of failures is not a tight loop.
      await new Promise((resolve) => setTimeout(resolve, PROBE_MS));
      if (Date.now() >= deadline) throw error;
    }
  }
}
