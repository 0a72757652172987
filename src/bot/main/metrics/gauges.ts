import { Gauge, type Registry } from "prom-client";
import type { Db } from "../../../store/connection/client";
import { type MetricsGauges, readMetricsGauges } from "../../../store/lists/metrics-gauges";

const seconds = (d: Date | null) => (d ? d.getTime() / 1000 : 0);

type Labelled = Array<{ labels: Record<string, string>; value: number }>;

/** Each database gauge: its name and help, and how its values come out of one read of `MetricsGauges`. */
const DATABASE_GAUGES: Array<{
  name: string;
  help: string;
  labelNames?: string[];
  values(g: MetricsGauges): Labelled;
}> = [
  {
    name: "holdfast_approvals_open",
    help: "Runs waiting for a decision",
    values: (g) => [{ labels: {}, value: g.approvalsOpen }],
  },
  {
    name: "holdfast_approval_oldest_open_created_timestamp_seconds",
    help: "Creation time of the oldest run waiting for a decision (0: none)",
    values: (g) => [{ labels: {}, value: seconds(g.oldestOpenApproval) }],
  },
  {
    name: "holdfast_deliveries_pending",
    help: "Outbox items not delivered yet (PLANNED, DISPATCHED), by kind",
    labelNames: ["kind"],
    values: (g) => g.pending.map((p) => ({ labels: { kind: p.kind }, value: p.count })),
  },
  {
    name: "holdfast_delivery_oldest_pending_created_timestamp_seconds",
    help: "Creation time of the oldest undelivered outbox item, by kind",
    labelNames: ["kind"],
    values: (g) => g.pending.map((p) => ({ labels: { kind: p.kind }, value: seconds(p.oldest) })),
  },
  {
    name: "holdfast_held_items",
    help: "Held work by kind: occurrence, inbound_event, action (planned actions of paused agents)",
    labelNames: ["kind"],
    values: (g) => Object.entries(g.held).map(([kind, count]) => ({ labels: { kind }, value: count })),
  },
];

export interface GaugeOptions {
  db: Db;
  now: () => Date;
  cacheMs: number;
  monitorLastTick?: () => Promise<Date | null>;
}

/** The gauges read from the database at scrape time; one read serves every gauge of a scrape and of `cacheMs`. */
export function registerDatabaseGauges(registry: Registry, options: GaugeOptions): void {
  let cached: { at: number; value: Promise<MetricsGauges> } | null = null;
  const gauges = (): Promise<MetricsGauges> => {
    const at = options.now().getTime();
    if (!cached || at - cached.at >= options.cacheMs || at < cached.at) {
      const value = readMetricsGauges(options.db);
      cached = { at, value };
      value.catch(() => {
        if (cached?.value === value) cached = null; // a failed read is not served again
      });
    }
    return cached.value;
  };
  for (const spec of DATABASE_GAUGES) {
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      async collect() {
        const values = spec.values(await gauges());
        // Labelled gauges start afresh each scrape, so a kind that emptied is not reported with its old count.
        if (spec.labelNames) this.reset();
        for (const { labels, value } of values) this.set(labels, value);
      },
    });
  }
  new Gauge({
    name: "holdfast_monitor_last_tick_timestamp_seconds",
    help: "When the escalation monitor last ticked (0: never, or not wired)",
    registers: [registry],
    async collect() {
      this.set(seconds((await options.monitorLastTick?.()) ?? null));
    },
  });
}
