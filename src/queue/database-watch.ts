import type { Logger } from "pino";
import { pingDatabase, type Store } from "../store/connection/client";

/**
 * What a lost database connection says, through Prisma, pg or the driver adapter: the server refused or
 * closed the connection (pg: a client whose connection broke "is not queryable"), or is shutting down (57P01 admin_shutdown, 57P03 cannot_connect_now).
 */
const CONNECTION_LOSS =
  /Can't reach database server|Connection terminated|connection error and is not queryable|Server has closed the connection|ECONNREFUSED|ECONNRESET|EPIPE|terminating connection|the database system is (shutting down|starting up|in recovery)|P1001|P1017|57P01|57P03/i;
export const isDatabaseConnectionLoss = (error: { message?: string; code?: unknown }): boolean =>
  CONNECTION_LOSS.test(`${String(error.code ?? "")} ${error.message ?? ""}`);

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
  const back = () => {
    if (probe) clearInterval(probe);
    probe = null;
    up = true;
    backAt = Date.now();
    watch.log.warn({ downMs: backAt - downSince }, "database is back");
  };
  const watch: Shared = {
    log,
    get up() {
      return up;
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
