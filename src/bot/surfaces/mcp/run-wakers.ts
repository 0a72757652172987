import type { HoldfastEvents } from "../../app/events";

/**
 * Who waits on which run, behind one `run.changed` listener per server (not one per waiting call). The event
 * is a hint within this process; a decision made by another process is seen by the poll.
 */
export class RunWakers {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly onChanged = (key: string) => {
    for (const wake of this.waiting.get(key) ?? []) wake();
  };

  constructor(private readonly events: HoldfastEvents) {
    events.on("run.changed", this.onChanged);
  }

  /** Resolves on the run's next change, after `ms`, or when `signal` aborts, whichever comes first. */
  next(key: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wakers = this.waiting.get(key) ?? new Set<() => void>();
      this.waiting.set(key, wakers);
      const wake = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", wake);
        wakers.delete(wake);
        if (wakers.size === 0) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal.addEventListener("abort", wake, { once: true });
      wakers.add(wake);
    });
  }

  close(): void {
    this.events.off("run.changed", this.onChanged);
  }
}
