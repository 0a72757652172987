import type { Logger } from "pino";
import type { AttemptOutcome, RetryPolicy } from "../../policy/delivery";
import {
  afterFailedAttempt,
  afterUncertainOutcome,
  attemptResult,
  DEFAULT_RETRY_POLICY,
  outcomeClass,
  outcomeDetail,
  parseContract,
} from "../../policy/delivery";
import { type Faults, NO_FAULTS } from "../../policy/faults";
import { type AttemptResult, type MetricsSink, NO_METRICS } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import { pausedScopes, readControls } from "../../store/control/gate";
import { type Controls, gateOf, gateScopes } from "../../store/control/records";
import { claimDueItems } from "../../store/outbox/claim";
import {
  markAcknowledged,
  markAcknowledgedMany,
  markDispatchedMany,
  markObserved,
  markRetry,
  markSettled,
  releaseLease,
  returnUnsent,
} from "../../store/outbox/marks";
import type { Claim, OutboxItem } from "../../store/outbox/types";
import { type DeliveryTransport, httpTransport } from "./http-transport";

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
   * so the items of a lane still go one after another.
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
}

/** How stale a round's gate reading may get before the next wave reads it again. */
const GATE_MAX_AGE_MS = 100;

interface Gate {
  controls: Controls;
  readAt: number;
}

export interface DeliveryLoop {
  /** Polls until stopped. */
  start(): void;
  /** Something was planned: look now instead of at the next poll. */
  nudge(): void;
  /** One claim-and-send round; returns how many items were claimed. */
  runOnce(): Promise<number>;
  /**
   * Sends items another step leased and marked DISPATCHED in the transaction that read their gate open (a
   * tick batch, for a fresh delivery alone in its lane), as a round of their own: no claim, gate read or
   * mark here. Each must be alone in its lane, as they all go out at once.
   */
  deliver(claims: Claim[]): void;
  /** How long a claim is exclusive, for whoever leases items for `deliver`. */
  readonly leaseMs: number;
  /**
   * How many more items `deliver` should be handed now: as many as the loop's own rounds may hold
   * (batchSize x roundsInFlight), less what handed-over rounds still hold. Beyond it, items wait in the
   * outbox, so a slow destination backs work up in the database, not in memory.
   */
  intakeRoom(): number;
  /** Items leased and being sent now. */
  inFlight(): number;
  /** Stops claiming; sends already under way finish first. */
  stop(): Promise<void>;
}

/**
 * The one delivery path (design.md section 10): trigger occurrences, released inbox events and approved
 * actions all go out through claim -> gate -> DISPATCHED -> send -> ACKNOWLEDGED, keyed by their item id.
 */
export function createDeliveryLoop(options: DeliveryLoopOptions): DeliveryLoop {
  const { store, log } = options;
  const db = store.db;
  const now = options.now ?? (() => new Date());
  const transport = options.transport ?? httpTransport();
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  const random = options.random ?? Math.random;
  const leaseMs = options.leaseMs ?? 30_000;
  const faults = options.faults ?? NO_FAULTS;
  const metrics = options.metrics ?? NO_METRICS;
  let stopped = false;
  let wake: (() => void) | null = null;

  /**
   * Records one attempt's outcome: acknowledgements are batched by the caller, the rest settle here by the
   * policy's rule, with one warn line per failed attempt and an error line when the item is given up.
   */
  async function settle(claim: Claim, outcome: AttemptOutcome, at: Date): Promise<void> {
    const attempts = claim.item.attempts + 1;
    if (outcome.kind === "acknowledged") {
      if (await markAcknowledged(db, claim, `HTTP ${outcome.status} at ${at.toISOString()}`)) await observe(claim.item);
      else metrics.duplicateEffectDetected(); // answered 2xx, but the lease had passed to another attempt
      return;
    }
    const detail = outcomeDetail(outcome);
    const result = attemptResult(outcome, at, attempts);
    const earlierUncertain = claim.item.state === "DISPATCHED" && claim.item.firstDispatchedAt !== null;
    const next = afterFailedAttempt(outcome, { attempts, earlierUncertain }, at, retry, random());
    const line = {
      key: claim.item.id,
      destination: claim.item.destination,
      class: outcomeClass(outcome),
      attempt: attempts,
      result: detail,
    };
    if (next.step === "settle") {
      await markSettled(db, claim, next.state, result);
      if (next.state === "FAILED") metrics.deliveryPermanentFailure(claim.item.kind);
      log.error({ ...line, state: next.state }, "delivery given up");
      return;
    }
    await markRetry(db, claim, next.at, result, next.state);
    log.warn({ ...line, nextAttemptAt: next.at.toISOString(), state: next.state }, "delivery attempt failed");
  }

  /** Sends one wave (at most one item per lane): DISPATCHED is persisted for the whole wave before any send. */
  async function sendWave(wave: Claim[]): Promise<void> {
    await sendDispatched(await markDispatchedMany(store, wave, now()));
  }

  /** Sends items marked DISPATCHED concurrently; the acknowledgements are written in one statement. */
  async function sendDispatched(dispatched: Claim[]): Promise<void> {
    if (dispatched.length === 0) return;
    faults.reach("after-dispatch-mark");
    const results = await Promise.all(
      dispatched.map(async (claim) => ({ claim, outcome: await transport.send(claim.item, claim.attemptId) })),
    );
    for (const { claim, outcome } of results) metrics.deliveryAttempt(claim.item.kind, attemptResultOf(outcome));
    const at = now();
    const plainAck = (r: (typeof results)[number]) => r.outcome.kind === "acknowledged" && r.outcome.status === 200;
    const acked = results.filter(plainAck);
    if (acked.length) faults.reach("before-acknowledge");
    const written = await markAcknowledgedMany(
      store,
      acked.map((r) => r.claim),
      `HTTP 200 at ${at.toISOString()}`,
      at,
    );
    // Answered 200, but the lease had passed to another attempt: the effect may exist twice.
    for (let i = written; i < acked.length; i++) metrics.duplicateEffectDetected();
    for (const { claim } of acked) await observe(claim.item);
    for (const { claim, outcome } of results.filter((r) => !plainAck(r))) {
      await settle(claim, outcome, at).catch((error: Error) =>
        log.error({ key: claim.item.id, err: error.message }, "delivery step failed"),
      );
    }
  }

  /** The control records of a round's claims (fail closed: a failed read holds everything). */
  async function readGate(claims: Claim[]): Promise<Gate> {
    const controls = await readControls(store, gateScopes(claims.map((c) => c.item))).catch((): Controls => new Map());
    return { controls, readAt: now().getTime() };
  }

  /** The wave's claims that may go: gate open, and an uncertain earlier attempt resolved. */
  async function openClaims(wave: Claim[], { controls }: Gate): Promise<Claim[]> {
    const open: Claim[] = [];
    for (const claim of wave) {
      const { agentId, tenantId } = claim.item;
      if (gateOf(controls, agentId, tenantId).held) {
        await releaseLease(db, claim);
        continue;
      }
      if (claim.item.state === "DISPATCHED" && claim.item.firstDispatchedAt) {
        if (!(await resolveUncertain(claim, claim.item.firstDispatchedAt))) continue;
      }
      open.push(claim);
    }
    return open;
  }

  /** An earlier attempt never acknowledged. Returns true when sending again with the same key is safe. */
  async function resolveUncertain(claim: Claim, firstDispatchedAt: Date): Promise<boolean> {
    const contract = parseContract(claim.item.contract) ?? { kind: "none" as const };
    const step = afterUncertainOutcome(contract, firstDispatchedAt, now());
    if (step === "retry_same_key") return true;
    const previous = `attempt ${claim.item.attempts} at ${claim.item.lastAttemptAt?.toISOString() ?? "?"}: ${claim.item.lastResult ?? "no answer"}`;
    if (step === "lookup" && contract.lookupUrl) {
      const answer = await transport.lookup(contract.lookupUrl, claim.item.id);
      if (answer === "absent") return true;
      if (answer === "present") {
        metrics.duplicateSuppressed("lookup");
        if (await markAcknowledged(db, claim, `found by lookup after ${previous}`)) {
          await markObserved(db, claim.item.id, now());
        }
        return false;
      }
    }
    await markSettled(
      db,
      claim,
      "NEEDS_REVIEW",
      `outcome unknown after ${previous}; contract '${claim.item.contract}'`,
    );
    return false;
  }

  /**
   * ACKNOWLEDGED means the destination answered 2xx. OBSERVED means the effect was seen to exist: asked of
   * the destination's status lookup when its contract names one. Without a lookup, ACKNOWLEDGED is final.
   */
  async function observe(item: OutboxItem): Promise<void> {
    const lookupUrl = parseContract(item.contract)?.lookupUrl;
    if (!lookupUrl) return;
    if ((await transport.lookup(lookupUrl, item.id)) === "present") await markObserved(db, item.id, now());
  }

  /** Rounds of items leased elsewhere (`deliver`), still under way: stop waits for them. */
  const delivering = new Set<Promise<void>>();
  let deliveringItems = 0;
  /** Items of every round under way, for a shutdown that must say what it leaves behind. */
  let leasedItems = 0;
  const batchSize = options.batchSize ?? 500;
  const roundsInFlight = Math.max(1, options.roundsInFlight ?? 3);

  async function claimRound(): Promise<Claim[]> {
    try {
      const paused = await pausedScopes(store);
      return await claimDueItems(store, {
        now: now(),
        limit: batchSize,
        leaseMs,
        excludeAgents: paused.agents,
        excludeTenants: paused.tenants,
      });
    } catch (error) {
      log.warn({ err: (error as Error).message }, "delivery claim failed; holding deliveries");
      return [];
    }
  }

  async function sendRound(claims: Claim[]): Promise<void> {
    // Items of one agent to one destination go one after another, in claim order (due order for a
    // release): wave k holds the k-th item of every lane. Different lanes go out concurrently. The gate is
    // read before the first wave and again once it is GATE_MAX_AGE_MS old, so a pause that lands during a
    // long round stops the waves after it.
    const lanes = new Map<string, Claim[]>();
    for (const claim of claims) {
      const lane = `${claim.item.agentId}|${claim.item.destination}`;
      const queue = lanes.get(lane);
      if (queue) queue.push(claim);
      else lanes.set(lane, [claim]);
    }
    const depth = Math.max(0, ...[...lanes.values()].map((l) => l.length));
    let gate: Gate | null = null;
    for (let k = 0; k < depth; k++) {
      const wave = [...lanes.values()].flatMap((lane) => (lane[k] ? [lane[k]!] : []));
      if (!gate || now().getTime() - gate.readAt > GATE_MAX_AGE_MS) gate = await readGate(claims);
      await openClaims(wave, gate)
        .then(sendWave)
        .catch((error: Error) => log.error({ err: error.message }, "delivery wave failed"));
    }
    await afterRound(claims);
  }

  /** Sends a round of items dispatched elsewhere (`deliver`): one wave, as each is alone in its lane. */
  async function sendDispatchedRound(claims: Claim[]): Promise<void> {
    await sendDispatched(claims).catch((error: Error) => log.error({ err: error.message }, "delivery wave failed"));
    await afterRound(claims);
  }

  async function afterRound(claims: Claim[]): Promise<void> {
    if (claims.length && options.afterRound) {
      await Promise.resolve(options.afterRound(claims.map((c) => c.item))).catch((error: Error) =>
        log.warn({ err: error.message }, "after-round step failed"),
      );
    }
  }

  /** Claims a round and starts sending it. */
  async function startRound(): Promise<{ claimed: number; done: Promise<void> }> {
    const claims = await claimRound();
    return { claimed: claims.length, done: runRound(claims, sendRound) };
  }

  /**
   * Sends a round's claims. Later items of their lanes stay out of every other claim, of this process or
   * another, while these are leased (the lane rule in store/outbox/claim.ts).
   */
  function runRound(claims: Claim[], send: (claims: Claim[]) => Promise<void>): Promise<void> {
    leasedItems += claims.length;
    return send(claims)
      .catch((error: Error) => log.error({ err: error.message }, "delivery round failed"))
      .finally(() => {
        leasedItems -= claims.length;
      });
  }

  async function runOnce(): Promise<number> {
    const round = await startRound();
    await round.done;
    return round.claimed;
  }

  /** Waits for the poll interval, a nudge, or (when given) a round to finish. */
  function idle(roundFinished?: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs ?? 200);
      const wakeUp = () => {
        clearTimeout(timer);
        if (wake === wakeUp) wake = null;
        resolve();
      };
      wake = wakeUp;
      roundFinished?.then(wakeUp);
    });
  }

  async function poll(): Promise<void> {
    const rounds = new Set<Promise<void>>();
    while (!stopped) {
      if (rounds.size >= roundsInFlight) {
        await Promise.race(rounds);
        continue;
      }
      const round = await startRound();
      if (round.claimed > 0) {
        const done = round.done.finally(() => rounds.delete(done));
        rounds.add(done);
      } else if (!stopped) {
        await idle(rounds.size ? Promise.race(rounds) : undefined);
      }
    }
    await Promise.all(rounds);
  }

  function deliver(claims: Claim[]): void {
    if (claims.length === 0) return;
    if (stopped) {
      // Stopping: take the dispatches back, unsent, rather than leave them to look uncertain at lease expiry.
      for (const claim of claims) {
        returnUnsent(db, claim).catch((error: Error) =>
          log.warn({ key: claim.item.id, err: error.message }, "unsent dispatch not taken back; it looks uncertain"),
        );
      }
      return;
    }
    deliveringItems += claims.length;
    const done: Promise<void> = runRound(claims, sendDispatchedRound).finally(() => {
      deliveringItems -= claims.length;
      delivering.delete(done);
    });
    delivering.add(done);
  }

  let running: Promise<void> | null = null;
  return {
    start() {
      running ??= poll();
    },
    nudge: () => wake?.(),
    runOnce,
    deliver,
    leaseMs,
    inFlight: () => leasedItems,
    intakeRoom: () => (stopped ? 0 : Math.max(0, batchSize * roundsInFlight - deliveringItems)),
    async stop() {
      stopped = true;
      wake?.();
      await running;
      await Promise.all(delivering);
      if (!options.transport) await transport.close?.();
    },
  };
}

/** An attempt's result as /metrics labels it. */
function attemptResultOf(outcome: AttemptOutcome): AttemptResult {
  if (outcome.kind === "acknowledged") return "acknowledged";
  const cls = outcomeClass(outcome);
  return cls === "answered" ? "rejected" : cls;
}
