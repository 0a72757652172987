import { pausedScopes } from "../../store/control/gate";
import { claimDueItems } from "../../store/outbox/claim";
import type { Claim } from "../../store/outbox/types";
import { warnUnlessOutage } from "../database-watch";
import type { DeliveryContext } from "./options";

/**
 * Claims a round: due items of agents and tenants that are not paused, leased for `leaseMs`. Later items of
 * their lanes stay out of every other claim, of this process or another, while these are leased (the lane
 * rule in store/outbox/claim.ts). A failed claim holds everything: the round is empty.
 */
export async function claimRound(ctx: DeliveryContext): Promise<Claim[]> {
  if (ctx.holding) return [];
  try {
    const paused = await pausedScopes(ctx.store);
    if (paused.deployment) return [];
    return await claimDueItems(ctx.store, {
      owner: ctx.owner,
      now: ctx.now(),
      limit: ctx.batchSize,
      leaseMs: ctx.leaseMs,
      excludeAgents: paused.agents,
      excludeTenants: paused.tenants,
      // Test only: the chaos suite's pause before the claim commits (the process hangs there for its kill).
      ...(ctx.faults.pausing("before-claim-commit")
        ? { beforeCommit: () => void ctx.faults.halt("before-claim-commit") }
        : {}),
    });
  } catch (error) {
    // A lost database is one line when it goes and one when it is back (the watch), not one per round.
    warnUnlessOutage(ctx.store, ctx.log, error as Error, "delivery claim failed; holding deliveries");
    return [];
  }
}
