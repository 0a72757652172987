import type { Store } from "../../store/client";
import { recordTicks, type Tick, type TickBatchResult } from "../../store/tick-batch";

export interface TickBatcher {
  /** Resolves once the tick's occurrence is committed (with the others of its batch). */
  add(tick: Tick): Promise<TickBatchResult>;
}

/**
 * Group commit for scheduler ticks: the worker runs many jobs at once, and their ticks share one
 * transaction. A job completes only after its batch committed, so a crash loses no acknowledged tick.
 */
export function createTickBatcher(store: Store, now: () => Date, maxBatch = 200, maxWaitMs = 2): TickBatcher {
  let pending: Array<{ tick: Tick; resolve: (r: TickBatchResult) => void; reject: (e: unknown) => void }> = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    recordTicks(
      store,
      batch.map((p) => p.tick),
      now(),
    ).then(
      (result) => {
        for (const p of batch) p.resolve(result);
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
      },
    );
  };
  return {
    add(tick) {
      return new Promise((resolve, reject) => {
        pending.push({ tick, resolve, reject });
        if (pending.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, maxWaitMs);
      });
    },
  };
}
