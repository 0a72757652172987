import { returnUnsent } from "../../store/outbox/marks";
import type { Claim } from "../../store/outbox/types";
import type { DeliveryContext } from "./options";

/**
 * Rounds of items another step leased and marked DISPATCHED (a tick batch, for a fresh delivery alone in
 * its lane: store/outbox/lease-at-plan.ts), sent without a claim, gate read or mark here. The intake keeps
 * count of them, so the tick step is offered no more than the loop may hold, and stop waits for them.
 */
export class Intake {
  private readonly rounds = new Set<Promise<void>>();
  private items = 0;

  constructor(
    private readonly ctx: DeliveryContext,
    private readonly send: (claims: Claim[]) => Promise<void>,
  ) {}

  /** Starts sending the claims as one round of their own. */
  take(claims: Claim[]): void {
    this.items += claims.length;
    const done: Promise<void> = this.send(claims).finally(() => {
      this.items -= claims.length;
      this.rounds.delete(done);
    });
    this.rounds.add(done);
  }

  /** Stopping: takes the dispatches back, unsent, rather than leave them to look uncertain at lease expiry. */
  giveBack(claims: Claim[]): void {
    for (const claim of claims) {
      returnUnsent(this.ctx.db, claim).catch((error: Error) =>
        this.ctx.log.warn(
          { key: claim.item.id, err: error.message },
          "unsent dispatch not taken back; it looks uncertain",
        ),
      );
    }
  }

  /**
   * How many more items should be handed over now: as many as the loop's own rounds may hold (batchSize x
   * roundsInFlight), less what handed-over rounds still hold. Beyond it, items wait in the outbox, so a slow
   * destination backs work up in the database, not in memory.
   */
  room(): number {
    return Math.max(0, this.ctx.batchSize * this.ctx.roundsInFlight - this.items);
  }

  /** Resolves once every handed-over round is done. */
  async settled(): Promise<void> {
    await Promise.all(this.rounds);
  }
}
