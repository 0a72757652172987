import type { Logger } from "pino";

export interface ProcessGuardOptions {
  /** More uncaught exceptions than this within a minute: the process is broken, so it exits. Default 10. */
  maxUncaughtPerMinute?: number;
  exit?: (code: number) => void;
  now?: () => number;
}

export interface ProcessGuard {
  counts: { unhandledRejection: number; uncaughtException: number };
  uninstall(): void;
}

type ProcessEvents = Pick<NodeJS.Process, "on" | "off">;

const describe = (reason: unknown) =>
  reason instanceof Error ? { err: reason.message, stack: reason.stack } : { err: String(reason) };

/**
 * The process-level policy (design.md section 11: no input crashes a process). A rejection nobody handled
 * is logged, counted and dropped: it belonged to one request or one packet. An uncaught exception is logged
 * and counted too, and the process keeps serving, because it keeps no truth in memory (the database is the
 * source of truth and every job is rebuilt from it); only a burst of them, which says the process itself is
 * broken rather than one input, ends it with exit code 1 for its supervisor to restart.
 */
export function installProcessGuard(proc: ProcessEvents, log: Logger, options: ProcessGuardOptions = {}): ProcessGuard {
  const max = options.maxUncaughtPerMinute ?? 10;
  const now = options.now ?? Date.now;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const counts = { unhandledRejection: 0, uncaughtException: 0 };
  const recent: number[] = [];

  const onRejection = (reason: unknown) => {
    counts.unhandledRejection++;
    log.error({ ...describe(reason), count: counts.unhandledRejection }, "unhandled rejection: dropped, still serving");
  };
  const onException = (error: unknown) => {
    counts.uncaughtException++;
    const at = now();
    recent.push(at);
    while (recent.length && recent[0]! <= at - 60_000) recent.shift();
    const count = counts.uncaughtException;
    if (recent.length > max) {
      log.fatal({ ...describe(error), count, lastMinute: recent.length }, "uncaught exceptions keep coming: exiting");
      exit(1);
      return;
    }
    log.error({ ...describe(error), count }, "uncaught exception: logged, still serving");
  };
  proc.on("unhandledRejection", onRejection);
  proc.on("uncaughtException", onException);
  return {
    counts,
    uninstall() {
      proc.off("unhandledRejection", onRejection);
      proc.off("uncaughtException", onException);
    },
  };
}
