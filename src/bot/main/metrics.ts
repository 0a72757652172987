import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { MetricsSink } from "../../policy/metrics-sink";
import type { Db } from "../../store/connection/client";
import { type MetricsGauges, readMetricsGauges } from "../../store/lists/metrics-gauges";
import type { HoldfastEvents } from "../app/events";

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
  listen(events: HoldfastEvents): void;
  /** The Prometheus text exposition. */
  render(): Promise<{ contentType: string; body: string }>;
}

const seconds = (d: Date | null) => (d ? d.getTime() / 1000 : 0);
const HOUR = 3600;

export function createMetrics(options: MetricsOptions): HoldfastMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const cacheMs = options.cacheMs ?? 5000;
  let cached: { at: number; value: Promise<MetricsGauges> } | null = null;
  /** One database read serves every gauge of a scrape, and the scrapes of the next `cacheMs`. */
  const gauges = (): Promise<MetricsGauges> => {
    const at = options.now().getTime();
    if (!cached || at - cached.at >= cacheMs || at < cached.at) {
      const value = readMetricsGauges(options.db);
      cached = { at, value };
      value.catch(() => {
        if (cached?.value === value) cached = null; // a failed read is not served again
      });
    }
    return cached.value;
  };

  const approvalWait = new Histogram({
    name: "holdfast_approval_wait_seconds",
    help: "Time from a packet version's submission to its outcome",
    labelNames: ["outcome"],
    buckets: [10, 60, 300, 900, HOUR, 4 * HOUR, 12 * HOUR, 24 * HOUR, 72 * HOUR, 168 * HOUR],
    registers,
  });
  const resolved = new Counter({
    name: "holdfast_approvals_resolved_total",
    help: "Approvals that left waiting, by outcome",
    labelNames: ["outcome"],
    registers,
  });
  const releasesStarted = new Counter({
    name: "holdfast_releases_started_total",
    help: "Releases opened (resumes and recoveries)",
    registers,
  });
  const releasesFinished = new Counter({
    name: "holdfast_releases_finished_total",
    help: "Releases that finished",
    registers,
  });
  const releaseDuration = new Histogram({
    name: "holdfast_release_duration_seconds",
    help: "From a release's opening to its finish",
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers,
  });
  const attempts = new Counter({
    name: "holdfast_delivery_attempts_total",
    help: "Delivery attempts by outbox kind and result (acknowledged, rejected, no_answer, not_sent)",
    labelNames: ["kind", "result"],
    registers,
  });
  const permanent = new Counter({
    name: "holdfast_delivery_permanent_failures_total",
    help: "Deliveries given up (FAILED) after their retries",
    labelNames: ["kind"],
    registers,
  });
  const suppressed = new Counter({
    name: "holdfast_duplicates_suppressed_total",
    help: "Repeated requests recognised and done once, by stage",
    labelNames: ["stage"],
    registers,
  });
  const duplicateEffects = new Counter({
    name: "holdfast_duplicate_effects_detected_total",
    help: "2xx answers for attempts whose lease had passed to another attempt (a possible double effect)",
    registers,
  });
  const escalationsSent = new Counter({
    name: "holdfast_escalations_sent_total",
    help: "Escalation pings sent, by level",
    labelNames: ["level"],
    registers,
  });
  const escalationsSuppressed = new Counter({
    name: "holdfast_escalations_suppressed_total",
    help: "Escalation pings not sent, by reason",
    labelNames: ["reason"],
    registers,
  });

  new Gauge({
    name: "holdfast_approvals_open",
    help: "Runs waiting for a decision",
    registers,
    async collect() {
      this.set((await gauges()).approvalsOpen);
    },
  });
  new Gauge({
    name: "holdfast_approval_oldest_open_created_timestamp_seconds",
    help: "Creation time of the oldest run waiting for a decision (0: none)",
    registers,
    async collect() {
      this.set(seconds((await gauges()).oldestOpenApproval));
    },
  });
  new Gauge({
    name: "holdfast_deliveries_pending",
    help: "Outbox items not delivered yet (PLANNED, DISPATCHED), by kind",
    labelNames: ["kind"],
    registers,
    async collect() {
      this.reset();
      for (const p of (await gauges()).pending) this.set({ kind: p.kind }, p.count);
    },
  });
  new Gauge({
    name: "holdfast_delivery_oldest_pending_created_timestamp_seconds",
    help: "Creation time of the oldest undelivered outbox item, by kind",
    labelNames: ["kind"],
    registers,
    async collect() {
      this.reset();
      for (const p of (await gauges()).pending) this.set({ kind: p.kind }, seconds(p.oldest));
    },
  });
  new Gauge({
    name: "holdfast_held_items",
    help: "Held work by kind: occurrence, inbound_event, action (planned actions of paused agents)",
    labelNames: ["kind"],
    registers,
    async collect() {
      for (const [kind, count] of Object.entries((await gauges()).held)) this.set({ kind }, count);
    },
  });
  new Gauge({
    name: "holdfast_monitor_last_tick_timestamp_seconds",
    help: "When the escalation monitor last ticked (0: never, or not wired)",
    registers,
    async collect() {
      this.set(seconds((await options.monitorLastTick?.()) ?? null));
    },
  });

  const sink: MetricsSink = {
    approvalResolved(outcome, waitSeconds) {
      resolved.inc({ outcome });
      approvalWait.observe({ outcome }, waitSeconds);
    },
    releaseStarted: () => releasesStarted.inc(),
    releaseFinished(duration) {
      releasesFinished.inc();
      releaseDuration.observe(duration);
    },
    deliveryAttempt: (kind, result) => attempts.inc({ kind, result }),
    deliveryPermanentFailure: (kind) => permanent.inc({ kind }),
    duplicateSuppressed: (stage) => suppressed.inc({ stage }),
    duplicateEffectDetected: () => duplicateEffects.inc(),
  };

  return {
    registry,
    sink,
    listen(events) {
      events.on("escalation.sent", (level) => escalationsSent.inc({ level: String(level) }));
      events.on("escalation.suppressed", (reason) => escalationsSuppressed.inc({ reason }));
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
