import { parseContract } from "../../policy/delivery";
import { classifyInFlight, type InFlightStep } from "../../policy/maintenance";
import type { OutboxState } from "../../policy/states";
import { acknowledgedWithLookupSince, freeLeftLease, leftLeased } from "../../store/outbox/left";
import { findOutboxItem, markObserved } from "../../store/outbox/marks";
import type { Claim } from "../../store/outbox/types";
import { resolveUncertain } from "./gate";
import type { DeliveryContext } from "./options";

/** One effect a stopped run left, as it was classified: from its recorded state, to what it is now. */
export interface Classified {
  id: string;
  tenantId: string;
  agentId: string;
  step: InFlightStep;
  from: OutboxState;
  to: OutboxState;
  /** The facts a reviewer needs: the packet digest, destination and key, the last attempt and its result. */
  note: string;
}

/**
 * Classifies what the run `owner` left (policy/maintenance.ts `classifyInFlight`), each by its own recorded
 * state, never by the death of the run: its leases on PLANNED rows are given back (sent again), its
 * DISPATCHED rows go through the contract rule (the same key, a lookup, or NEEDS_REVIEW), and receipts
 * recorded since `since` are reconciled through their lookup. Final states are not read at all. The same
 * steps serve a drain that reached its deadline (this run's own leases) and a boot after an unclean stop.
 */
export async function classifyLeft(ctx: DeliveryContext, owner: string, since: Date): Promise<Classified[]> {
  const done: Classified[] = [];
  for (const claim of await leftLeased(ctx.db, owner)) {
    const classified = await classifyOne(ctx, claim);
    if (classified) done.push(classified);
  }
  for (const claim of await acknowledgedWithLookupSince(ctx.db, since)) {
    const lookupUrl = parseContract(claim.item.contract)?.lookupUrl;
    if (!lookupUrl || (await ctx.transport.lookup(lookupUrl, claim.item.id)) !== "present") continue;
    if (await markObserved(ctx.db, claim.item.id, ctx.now())) done.push(entry(claim, "reconcile", "OBSERVED"));
  }
  return done;
}

async function classifyOne(ctx: DeliveryContext, claim: Claim): Promise<Classified | null> {
  const { item } = claim;
  const now = ctx.now();
  const contract = parseContract(item.contract) ?? { kind: "none" as const };
  const step = classifyInFlight(item.state, contract, item.firstDispatchedAt, now);
  if (step === "dispatch_again") {
    return (await freeLeftLease(ctx.db, claim, now)) ? entry(claim, step, "PLANNED") : null;
  }
  // DISPATCHED: the loop's own rule for an attempt without a receipt. True: sending again is safe.
  if (await resolveUncertain(ctx, claim, item.firstDispatchedAt ?? now)) {
    return (await freeLeftLease(ctx.db, claim, now)) ? entry(claim, step, "DISPATCHED") : null;
  }
  const after = await findOutboxItem(ctx.db, item.id);
  if (!after || after.leaseToken === claim.leaseToken) return null; // taken over meanwhile, or unchanged
  return entry(claim, step, after.state, after.lastResult);
}

function entry(claim: Claim, step: InFlightStep, to: OutboxState, result?: string | null): Classified {
  const { item } = claim;
  const last = `attempt ${item.attempts} at ${item.lastAttemptAt?.toISOString() ?? "-"}: ${result ?? item.lastResult ?? "no answer"}`;
  const note = `digest ${item.digest ?? "-"}; ${item.destination} key ${item.id}; ${last}`;
  return { id: item.id, tenantId: item.tenantId, agentId: item.agentId, step, from: item.state, to, note };
}
