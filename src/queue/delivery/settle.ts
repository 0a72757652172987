import {
  type AttemptOutcome,
  afterFailedAttempt,
  attemptResult,
  outcomeClass,
  outcomeDetail,
  parseContract,
} from "../../policy/delivery";
import type { AttemptResult } from "../../policy/metrics-sink";
import { markAcknowledged, markAcknowledgedMany, markObserved, markRetry, markSettled } from "../../store/outbox/marks";
import type { Claim, OutboxItem } from "../../store/outbox/types";
import type { DeliveryContext } from "./options";

type Sent = { claim: Claim; outcome: AttemptOutcome };

/**
 * Sends items marked DISPATCHED concurrently and settles them: the plain 200s are acknowledged in one
 * statement, every other outcome by the policy's rule, one item at a time.
 */
export async function sendDispatched(ctx: DeliveryContext, dispatched: Claim[]): Promise<void> {
  if (dispatched.length === 0) return;
  ctx.faults.reach("after-dispatch-mark");
  if (ctx.faults.pausing("after-dispatch-mark")) await ctx.faults.halt("after-dispatch-mark");
  const results = await Promise.all(
    dispatched.map(
      async (claim): Promise<Sent> => ({ claim, outcome: await ctx.transport.send(claim.item, claim.attemptId) }),
    ),
  );
  for (const { claim, outcome } of results) ctx.metrics.deliveryAttempt(claim.item.kind, attemptResultOf(outcome));
  const at = ctx.now();
  const plainAck = (r: Sent) => r.outcome.kind === "acknowledged" && r.outcome.status === 200;
  await acknowledgeAll(
    ctx,
    results.filter(plainAck).map((r) => r.claim),
    at,
  );
  for (const { claim, outcome } of results.filter((r) => !plainAck(r))) {
    await settle(ctx, claim, outcome, at).catch((error: Error) =>
      ctx.log.error({ key: claim.item.id, err: error.message }, "delivery step failed"),
    );
  }
}

/** The batched ACK of the plain 200s, then their observation. */
async function acknowledgeAll(ctx: DeliveryContext, acked: Claim[], at: Date): Promise<void> {
  if (acked.length) ctx.faults.reach("before-acknowledge");
  if (acked.length && ctx.faults.pausing("before-acknowledge")) await ctx.faults.halt("before-acknowledge");
  const written = await markAcknowledgedMany(ctx.store, acked, `HTTP 200 at ${at.toISOString()}`, at);
  if (acked.length) ctx.faults.reach("after-acknowledge");
  if (acked.length && ctx.faults.pausing("after-acknowledge")) await ctx.faults.halt("after-acknowledge");
  // Answered 200, but the lease had passed to another attempt: the effect may exist twice.
  for (let i = written; i < acked.length; i++) ctx.metrics.duplicateEffectDetected();
  for (const claim of acked) await observe(ctx, claim.item);
}

/**
 * Records one attempt's outcome other than a plain 200, by the policy's rule, with one warn line per failed
 * attempt and an error line when the item is given up.
 */
async function settle(ctx: DeliveryContext, claim: Claim, outcome: AttemptOutcome, at: Date): Promise<void> {
  const { db, metrics, log } = ctx;
  const attempts = claim.item.attempts + 1;
  if (outcome.kind === "acknowledged") {
    if (await markAcknowledged(db, claim, `HTTP ${outcome.status} at ${at.toISOString()}`))
      await observe(ctx, claim.item);
    else metrics.duplicateEffectDetected(); // answered 2xx, but the lease had passed to another attempt
    return;
  }
  const result = attemptResult(outcome, at, attempts);
  const earlierUncertain = claim.item.state === "DISPATCHED" && claim.item.firstDispatchedAt !== null;
  const next = afterFailedAttempt(outcome, { attempts, earlierUncertain }, at, ctx.retry, ctx.random());
  const line = {
    key: claim.item.id,
    destination: claim.item.destination,
    class: outcomeClass(outcome),
    attempt: attempts,
    result: outcomeDetail(outcome),
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

/**
 * ACKNOWLEDGED means the destination answered 2xx. OBSERVED means the effect was seen to exist: asked of
 * the destination's status lookup when its contract names one. Without a lookup, ACKNOWLEDGED is final.
 */
async function observe(ctx: DeliveryContext, item: OutboxItem): Promise<void> {
  const lookupUrl = parseContract(item.contract)?.lookupUrl;
  if (!lookupUrl) return;
  if ((await ctx.transport.lookup(lookupUrl, item.id)) === "present") await markObserved(ctx.db, item.id, ctx.now());
}

/** An attempt's result as /metrics labels it. */
function attemptResultOf(outcome: AttemptOutcome): AttemptResult {
  if (outcome.kind === "acknowledged") return "acknowledged";
  const cls = outcomeClass(outcome);
  return cls === "answered" ? "rejected" : cls;
}
