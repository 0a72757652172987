import type { Logger } from "pino";
import type { Faults } from "../../policy/faults";
import type { MetricsSink } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import type { AgentPost } from "./agent-webhook";
import type { HoldfastEvents } from "./events";

/** What every handler receives: injected services and the clock. Handlers do no other I/O. */
export interface HandlerContext {
  store: Store;
  log: Logger;
  now: () => Date;
  events: HoldfastEvents;
  /** Test-only fault points (src/policy/faults.ts); absent or `NO_FAULTS` unless HOLDFAST_CRASH_AT is set. */
  faults?: Faults;
  /** What `/metrics` counts (src/bot/metrics); absent: nothing is counted. */
  metrics?: MetricsSink;
  /** How long a pause waits for in-flight work before it completes anyway (HOLDFAST_DRAIN_TIMEOUT). Default 30 s. */
  drainTimeoutMs?: number;
  /** The process that answers (HOLDFAST_INSTANCE), for a maintenance window of "this process". */
  instance?: string;
  /** Signed POSTs to an agent's webhook (the resume's readiness call); absent: unsigned, as for an agent with no key. */
  agentPost?: AgentPost;
}
