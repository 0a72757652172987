import type { Store } from "../store/connection/client";
import { type PruneCounts, pruneFinished } from "../store/lists/retention";
import type { QueueComponentOptions } from "./base";
import { type RepeatingJob, startRepeatingJob } from "./repeating-job";

export interface RetentionOptions extends QueueComponentOptions {
  store: Store;
  now?: () => Date;
  /** Delivered work older than this is pruned. */
  deliveredMs: number;
  /** The audit tables (and failed or abandoned items) older than this are pruned. */
  auditMs: number;
  /** How often the prune runs. Default hourly: retention is counted in days, and each prune is a few deletes. */
  everyMs?: number;
}

export interface Retention extends Pick<RepeatingJob, "close"> {
  /** One prune now (what each scheduled run does); resolves with its counts. */
  pruneNow(): Promise<PruneCounts>;
}

/**
 * The scheduled prune of finished work: a BullMQ job scheduler (one per deployment, whichever process takes
 * the job) whose processor deletes what is past its window and logs the counts. Redis holds only the timing;
 * a lost schedule is upserted again at the next start, and a missed prune is caught up by the next one.
 */
export async function startRetention(options: RetentionOptions): Promise<Retention> {
  const { store, log, deliveredMs, auditMs } = options;
  const now = options.now ?? (() => new Date());
  const pruneNow = async () => {
    const at = now().getTime();
    const counts = await pruneFinished(store.db, {
      deliveredBefore: new Date(at - deliveredMs),
      auditBefore: new Date(at - auditMs),
    });
    log.info({ ...counts, deliveredMs, auditMs }, "retention prune");
    return counts;
  };
  const job = await startRepeatingJob({
    redisUrl: options.redisUrl,
    prefix: options.prefix,
    log,
    name: "retention",
    schedulerId: "prune", // as deployed before: another id would leave the old scheduler running too
    everyMs: options.everyMs ?? 3_600_000,
    run: pruneNow,
    failedMessage: "retention prune failed",
    keepFailed: 100,
  });
  return { pruneNow, close: () => job.close() };
}
