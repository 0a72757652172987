/**
 * Runs chat work (approval decisions) a few at a time, each started from a fresh turn of the event loop,
 * and holds it back while clicks are still pouring in. Platforms want their acks fast (Slack: 3 s for the
 * HTTP answer), and an ack is a little work while a decision is a database transaction that holds the event
 * loop (better-sqlite3 is synchronous). With 500 clicks at once, decisions interleaved with the burst held
 * each ack behind them (bench/chat.ts); waiting for a quiet moment lets every ack of a burst go out first.
 */
export interface WorkQueue {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves once nothing is waiting or running (at once when nothing is). */
  idle(): Promise<void>;
}

export interface WorkQueueOptions {
  /** Decisions in flight at once. Default 2: SQLite serialises writes anyway; PostgreSQL gains little more. */
  concurrency?: number;
  /** Work waits until nothing new was queued for this long. Default 20 ms. */
  quietMs?: number;
  /** ...but never longer than this after it was queued, so a steady stream still makes progress. Default 500 ms. */
  maxDelayMs?: number;
  now?: () => number;
}

export function createWorkQueue(options: WorkQueueOptions = {}): WorkQueue {
  const concurrency = options.concurrency ?? 2;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be a positive integer");
  const quietMs = options.quietMs ?? 20;
  const maxDelayMs = options.maxDelayMs ?? 500;
  const now = options.now ?? Date.now;
  const waiting: Array<{ queuedAt: number; start: () => void }> = [];
  let running = 0;
  let idlers: Array<() => void> = [];
  const wakeIdlers = () => {
    if (running > 0 || waiting.length > 0) return;
    const woken = idlers;
    idlers = [];
    for (const wake of woken) wake();
  };
  let lastQueuedAt = 0;
  let timer: NodeJS.Timeout | undefined;

  const next = () => {
    if (running >= concurrency || waiting.length === 0 || timer) return;
    const t = now();
    const hold = Math.min(quietMs - (t - lastQueuedAt), maxDelayMs - (t - waiting[0]!.queuedAt));
    if (hold > 0) {
      timer = setTimeout(() => {
        timer = undefined;
        next();
      }, hold);
      return;
    }
    const { start } = waiting.shift()!;
    running++;
    // setImmediate lets the poll phase (incoming requests, their acks) run before each piece of work.
    setImmediate(start);
    next();
  };

  return {
    run(work) {
      return new Promise((resolve, reject) => {
        lastQueuedAt = now();
        waiting.push({
          queuedAt: lastQueuedAt,
          start: () => {
            work()
              .then(resolve, reject)
              .finally(() => {
                running--;
                next();
                wakeIdlers();
              });
          },
        });
        next();
      });
    },
    idle() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idlers.push(resolve));
    },
  };
}
