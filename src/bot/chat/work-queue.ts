/**
 * Runs chat work (approval decisions) a few at a time, each started from a fresh turn of the event loop.
 * Platforms want their acks fast (Slack: 3 s for the HTTP answer), and an ack is a little work while a
 * decision is a database transaction. With 500 clicks at once, unbounded decisions held the event loop and
 * acks waited seconds behind them (bench/chat.ts); queued like this, pending acks go out between decisions.
 */
export interface WorkQueue {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export interface WorkQueueOptions {
  /** Decisions in flight at once. Default 2: SQLite serialises writes anyway; PostgreSQL gains little more. */
  concurrency?: number;
}

export function createWorkQueue(options: WorkQueueOptions = {}): WorkQueue {
  const concurrency = options.concurrency ?? 2;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be a positive integer");
  const waiting: Array<() => void> = [];
  let running = 0;

  const next = () => {
    if (running >= concurrency) return;
    const start = waiting.shift();
    if (!start) return;
    running++;
    // setImmediate lets the poll phase (incoming requests, their acks) run before each piece of work.
    setImmediate(start);
  };

  return {
    run(work) {
      return new Promise((resolve, reject) => {
        waiting.push(() => {
          work()
            .then(resolve, reject)
            .finally(() => {
              running--;
              next();
            });
        });
        next();
      });
    },
  };
}
