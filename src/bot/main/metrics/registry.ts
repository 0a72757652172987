import { collectDefaultMetrics, Registry } from "prom-client";
import type { MetricsSink } from "../../../policy/metrics-sink";
import type { Db } from "../../../store/connection/client";
import type { HandlerContext } from "../../app/context";
import { react } from "../reactions";
import { countingSink } from "./counters";
import { registerDatabaseGauges } from "./gauges";

export interface MetricsOptions {
  db: Db;
  now: () => Date;
  /** How long the database gauges of one scrape serve the next ones. Default 5 s (the bound). */
  cacheMs?: number;
  /**
   * When the escalation monitor last ticked (the escalation store, wired at start). Absent, or null from it:
   * `holdfast_monitor_last_tick_timestamp_seconds` reports 0, read as "never".
   */
  monitorLastTick?: () => Promise<Date | null>;
}

export interface HoldfastMetrics {
  /** This app's own registry (never prom-client's global one, so several apps in one process stay apart). */
  registry: Registry;
  /** What handlers, the delivery loop and the release loop count through (`ctx.metrics`). */
  sink: MetricsSink;
  /** Counts the escalation events of the bot's event bus. */
  listen(ctx: Pick<HandlerContext, "events" | "log" | "store">): void;
  /** The Prometheus text exposition. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** One registry per app (never prom-client's global one, so several apps in one process stay apart). */
export function createMetrics(options: MetricsOptions): HoldfastMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { sink, escalations } = countingSink(registry);
  registerDatabaseGauges(registry, {
    db: options.db,
    now: options.now,
    cacheMs: options.cacheMs ?? 5000,
    monitorLastTick: options.monitorLastTick,
  });
  return {
    registry,
    sink,
    listen(ctx) {
      react(ctx, {
        metrics: { escalationSent: escalations.sent, escalationSuppressed: escalations.suppressed },
      });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
