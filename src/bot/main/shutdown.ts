import type { Logger } from "pino";
import type { HoldfastApp } from "./app";

export interface ShutdownOptions {
  /** How long a stop may take before the process exits anyway (HOLDFAST_DRAIN_TIMEOUT). */
  budgetMs: number;
  exit: (code: number) => void;
}

type SignalSource = Pick<NodeJS.Process, "on">;

/**
 * Stop like a service: the first SIGTERM (or SIGINT) stops taking work, lets what is under way finish
 * (sends in flight, HTTP requests, release steps) and exits 0. A second signal, or a stop that outlives the
 * drain budget, exits 1 at once after saying what is left: items still leased are not lost, their leases
 * expire and the next process to run takes them over (design.md section 6).
 */
export function stopOnSignals(
  proc: SignalSource,
  app: HoldfastApp,
  log: Logger,
  options: ShutdownOptions,
): (signal: NodeJS.Signals) => void {
  let stopping = false;
  const forced = (why: string) => {
    const left = app.inFlight();
    log.warn(
      { left },
      `${why}: exiting now with ${left.deliveries} deliveries in flight (their leases expire, then they are sent again or reviewed)`,
    );
    options.exit(1);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return forced(`second ${signal}`);
    stopping = true;
    const inFlight = app.inFlight();
    log.info(
      { signal, inFlight },
      `${signal}: shutting down; work under way finishes first (send ${signal} again to force)`,
    );
    const budget = setTimeout(() => forced(`still stopping after ${options.budgetMs} ms`), options.budgetMs);
    budget.unref();
    app.stop().then(
      () => {
        clearTimeout(budget);
        log.info({ signal }, "stopped cleanly");
        options.exit(0);
      },
      (error: Error) => {
        clearTimeout(budget);
        log.error({ err: error.message }, "stop failed");
        options.exit(1);
      },
    );
  };
  proc.on("SIGTERM", onSignal);
  proc.on("SIGINT", onSignal);
  return onSignal;
}

/**
 * Signals that arrive while the app is starting (migrations, the directory sync, the demo seed) are kept
 * until it has started, then stop it as usual; a second one during the start exits at once. Without this a
 * SIGTERM just after the "serving" line took Node's default action and killed the process mid-start.
 */
export function holdSignalsDuringStart(proc: Pick<NodeJS.Process, "on" | "off">, exit: (code: number) => void) {
  let pending: NodeJS.Signals | null = null;
  const remember = (signal: NodeJS.Signals) => {
    if (pending) exit(1);
    pending = signal;
  };
  proc.on("SIGTERM", remember);
  proc.on("SIGINT", remember);
  return {
    /** Stops holding; the signal that came during the start, if any. */
    release(): NodeJS.Signals | null {
      proc.off("SIGTERM", remember);
      proc.off("SIGINT", remember);
      return pending;
    },
  };
}
