import type { Logger } from "pino";
import { z } from "zod";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../policy/delivery";
import { type Faults, NO_FAULTS } from "../../policy/faults";
import { type MetricsSink, NO_METRICS } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import type { OutboxItem } from "../../store/outbox/types";
import { logOption, parseOptions, positiveMs } from "../base";
import { type DeliveryTransport, httpTransport } from "./http-transport";

/** How long a claim is exclusive by default (HOLDFAST_DELIVERY_LEASE_MS takes its default from here). */
export const DEFAULT_DELIVERY_LEASE_MS = 30_000;

export interface DeliveryLoopOptions {
  store: Store;
  log: Logger;
  now?: () => Date;
  transport?: DeliveryTransport;
  /** Idle wait between polls when nothing was due. Default 200 ms; `nudge()` wakes it early. */
  pollMs?: number;
  /**
   * Items claimed per round. Default 500: a release claims many items of one agent in due order, and those
   * go one after another, so a bigger round holds more agents (lanes) per wave (bench/held.ts: the release
   * rate rose from about 1,340 to 1,990 deliveries/s going from 50 to 200, and from about 3,000 to 3,400
   * going from 200 to 500 once the SQLite hot path was on prepared statements).
   */
  batchSize?: number;
  /**
   * Rounds under way at once while polling. Default 3: a release sends each agent's items one after
   * another, so a round spends most of its time waiting on its waves, and the next round's claim and
   * marks go on meanwhile (bench/held.ts). A round never claims an agent that another round still holds,
   * so the items of a lane still go one after another. Below 1 counts as 1.
   */
  roundsInFlight?: number;
  /** How long a claim is exclusive; a worker that dies leaves the item claimable after this. Default 30 s. */
  leaseMs?: number;
  retry?: RetryPolicy;
  random?: () => number;
  /** After each round, with the items it worked on (their new state is in the database). */
  afterRound?: (items: OutboxItem[]) => Promise<void> | void;
  /** Test-only fault points (src/policy/faults.ts); none unless HOLDFAST_CRASH_AT is set. */
  faults?: Faults;
  /** Counts attempts, permanent failures and duplicates (src/policy/metrics-sink.ts). */
  metrics?: MetricsSink;
  /** This run's id: the prefix of every lease token it takes, so its leases are found after it died. */
  owner?: string;
}

const count = () => z.number().int("a whole number").positive("above 0");

/** The checked numbers; the rest are objects the type already describes. */
const DeliveryLoopSchema = z.object({
  store: z.custom<Store>((value) => typeof value === "object" && value !== null && "db" in value, "a store"),
  log: logOption,
  pollMs: positiveMs().default(200),
  batchSize: count().default(500),
  roundsInFlight: z
    .number()
    .int("a whole number")
    .default(3)
    .transform((n) => Math.max(1, n)),
  leaseMs: positiveMs().default(DEFAULT_DELIVERY_LEASE_MS),
});

/** What every step of the loop works with: the options resolved, their defaults filled in. */
export interface DeliveryContext {
  store: Store;
  db: Store["db"];
  log: Logger;
  now: () => Date;
  transport: DeliveryTransport;
  /** Whether the transport is the loop's own (closed with it) rather than the caller's. */
  ownTransport: boolean;
  retry: RetryPolicy;
  random: () => number;
  faults: Faults;
  metrics: MetricsSink;
  pollMs: number;
  batchSize: number;
  roundsInFlight: number;
  leaseMs: number;
  owner: string;
  /** While true (a maintenance drain), nothing new is claimed or leased. */
  holding: boolean;
  afterRound?: DeliveryLoopOptions["afterRound"];
}

export function deliveryContext(options: DeliveryLoopOptions): DeliveryContext {
  const checked = parseOptions("delivery loop", DeliveryLoopSchema, options);
  return {
    ...checked,
    db: options.store.db,
    now: options.now ?? (() => new Date()),
    transport: options.transport ?? httpTransport(),
    ownTransport: !options.transport,
    retry: options.retry ?? DEFAULT_RETRY_POLICY,
    random: options.random ?? Math.random,
    faults: options.faults ?? NO_FAULTS,
    metrics: options.metrics ?? NO_METRICS,
    afterRound: options.afterRound,
    owner: options.owner ?? "",
    holding: false,
  };
}
