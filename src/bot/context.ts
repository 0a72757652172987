import type { Logger } from "pino";
import type { Store } from "../store/client";
import type { CrashPoint } from "./crash-hook";
import type { HoldfastEvents } from "./events";

/** What every handler receives: injected services and the clock. Handlers do no other I/O. */
export interface HandlerContext {
  store: Store;
  log: Logger;
  now: () => Date;
  events: HoldfastEvents;
  /** Test-only crash points; absent unless HOLDFAST_CRASH_AT is set. */
  crash?: (point: CrashPoint) => void;
  /** How long a pause waits for in-flight work before it completes anyway (HOLDFAST_DRAIN_TIMEOUT). Default 90 s. */
  drainTimeoutMs?: number;
}
