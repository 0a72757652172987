import type { Logger } from "pino";
import type { HoldfastApp } from "./app";

export interface ShutdownOptions {
  /** HOLDFAST_DRAIN_TIMEOUT: how long the drain waits for work in flight before it classifies what is left. */
  budgetMs: number;
  /** HOLDFAST_DRAIN_DELAY: how long work is still taken after the signal. */
  delayMs?: number;
  exit: (code: number) => void;
}

type SignalSource = Pick<NodeJS.Process, "on">;

/** After the drain deadline: the time the classification and the recording of STOPPED get before a forced exit. */
const FORCE_AFTER_DEADLINE_MS = 10_000;
/** Once STOPPED is recorded: how long the rest of the shutdown (closing connections) may take. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Stop like a service (design.md section 7): the first SIGTERM (or SIGINT) opens this process's maintenance
 * window, DRAINING: /healthz answers 503 at once, work is still taken for HOLDFAST_DRAIN_DELAY, then nothing
 * new is claimed and what is under way finishes; at the drain deadline what is still in flight is classified
 * by its recorded state. QUIESCED, then STOPPED is recorded just before the exit (0), so the next start of
 * this instance reports `previousShutdown: clean`. A second signal, or a stop that outlives the deadline by
 * FORCE_AFTER_DEADLINE_MS, exits 1 at once after saying what is left: leased items are not lost, their
 * leases expire or the next start classifies them.
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
    const limit = (options.delayMs ?? 0) + options.budgetMs + FORCE_AFTER_DEADLINE_MS;
    const budget = setTimeout(() => forced(`still stopping after ${limit} ms`), limit);
    budget.unref();
    const stop = async () => {
      await app.maintenance.drainForStop(signal);
      await app.maintenance.recordStopped();
      await Promise.race([app.stop(), new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    };
    stop().then(
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
