import type { PlanIntake } from "../../store/outbox/lease-at-plan";
import type { Claim } from "../../store/outbox/types";
import { warnUnlessOutage } from "../database-watch";
import { claimRound } from "./claim-round";
import { Intake } from "./intake";
import { type DeliveryContext, type DeliveryLoopOptions, deliveryContext } from "./options";
import { type Classified, classifyLeft } from "./recovery";
import { sendDispatchedWave, sendWaves } from "./waves";

export type { DeliveryLoopOptions } from "./options";

/**
 * The one delivery path (design.md section 10): trigger occurrences, released inbox events and approved
 * actions all go out through claim -> gate -> DISPATCHED -> send -> ACKNOWLEDGED, keyed by their item id.
 * The steps live beside this file: claim-round, gate, waves, settle, intake.
 */
export class DeliveryLoop {
  private readonly ctx: DeliveryContext;
  private readonly intake: Intake;
  private stopped = false;
  private wake: (() => void) | null = null;
  private running: Promise<void> | null = null;
  /** Items of every round under way, for a shutdown that must say what it leaves behind. */
  private leased = 0;

  /** How long a claim is exclusive, for whoever leases items for `deliver`. */
  readonly leaseMs: number;

  constructor(options: DeliveryLoopOptions) {
    this.ctx = deliveryContext(options);
    this.leaseMs = this.ctx.leaseMs;
    this.intake = new Intake(this.ctx, (claims) => this.runRound(claims, sendDispatchedWave));
  }

  /** Polls until stopped. */
  start(): void {
    this.running ??= this.poll();
  }

  /** Something was planned: look now instead of at the next poll. */
  nudge = (): void => this.wake?.();

  /** One claim-and-send round; returns how many items were claimed. */
  async runOnce(): Promise<number> {
    const round = await this.startRound();
    await round.done;
    return round.claimed;
  }

  /**
   * Sends items another step leased and marked DISPATCHED in the transaction that read their gate open, as
   * a round of their own (intake.ts). Each must be alone in its lane, as they all go out at once.
   */
  deliver(claims: Claim[]): void {
    if (claims.length === 0) return;
    if (this.stopped) this.intake.giveBack(claims);
    else this.intake.take(claims);
  }

  /** How many more items `deliver` should be handed now (see Intake.room); none once stopping. */
  intakeRoom = (): number => (this.stopped || this.ctx.holding ? 0 : this.intake.room());

  /** The intake a tick step is given (store/outbox/lease-at-plan.ts): lease this many as planned. */
  planIntake = (): PlanIntake => ({ leaseMs: this.leaseMs, limit: this.intakeRoom(), owner: this.ctx.owner });

  /**
   * A maintenance drain: while held, nothing new is claimed or leased here (sends under way finish);
   * `hold(false)` takes work again.
   */
  hold(holding: boolean): void {
    this.ctx.holding = holding;
    if (!holding) this.nudge();
  }

  /** Classifies what the run `owner` left leased (see recovery.ts); this run's own at a drain deadline. */
  classifyLeft(owner: string, since: Date): Promise<Classified[]> {
    return classifyLeft(this.ctx, owner, since);
  }

  /** Items leased and being sent now. */
  inFlight = (): number => this.leased;

  /** Stops claiming; sends already under way finish first. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    await this.intake.settled();
    if (this.ctx.ownTransport) await this.ctx.transport.close?.();
  }

  /** Claims a round and starts sending it. */
  private async startRound(): Promise<{ claimed: number; done: Promise<void> }> {
    const claims = await claimRound(this.ctx);
    return { claimed: claims.length, done: this.runRound(claims, sendWaves) };
  }

  /** Sends a round's claims, then the after-round step; the count of leased items is kept in `finally`. */
  private async runRound(claims: Claim[], send: (ctx: DeliveryContext, claims: Claim[]) => Promise<void>) {
    this.leased += claims.length;
    try {
      await send(this.ctx, claims);
      await this.afterRound(claims);
    } catch (error) {
      this.ctx.log.error({ err: (error as Error).message }, "delivery round failed");
    } finally {
      this.leased -= claims.length;
    }
  }

  private async afterRound(claims: Claim[]): Promise<void> {
    if (claims.length === 0 || !this.ctx.afterRound) return;
    const { store, log } = this.ctx;
    // A lost database is the watch's one line each way, not one per round.
    await Promise.resolve(this.ctx.afterRound(claims.map((c) => c.item))).catch((error: Error) =>
      warnUnlessOutage(store, log, error, "after-round step failed"),
    );
  }

  /** Up to `roundsInFlight` rounds at once; idle when nothing was due, until the poll interval or a nudge. */
  private async poll(): Promise<void> {
    const rounds = new Set<Promise<void>>();
    while (!this.stopped) {
      if (rounds.size >= this.ctx.roundsInFlight) {
        await Promise.race(rounds);
        continue;
      }
      const round = await this.startRound();
      if (round.claimed > 0) {
        const done = round.done.finally(() => rounds.delete(done));
        rounds.add(done);
      } else if (!this.stopped) {
        await this.idle(rounds.size ? Promise.race(rounds) : undefined);
      }
    }
    await Promise.all(rounds);
  }

  /** Waits for the poll interval, a nudge, or (when given) a round to finish. */
  private idle(roundFinished?: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.ctx.pollMs);
      const wakeUp = () => {
        clearTimeout(timer);
        if (this.wake === wakeUp) this.wake = null;
        resolve();
      };
      this.wake = wakeUp;
      roundFinished?.then(wakeUp);
    });
  }
}

/** The loop, for callers that build it by a function. */
export const createDeliveryLoop = (options: DeliveryLoopOptions): DeliveryLoop => new DeliveryLoop(options);
