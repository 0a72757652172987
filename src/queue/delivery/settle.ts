import {
  type AttemptOutcome,
  afterFailedAttempt,
  attemptResult,
  outcomeClass,
  outcomeDetail,
  parseContract,
} from "../../policy/delivery";
import type { AttemptResult } from "../../policy/metrics-sink";
import {
  type Acknowledgements,
  markAcknowledged,
  markObserved,
  markRetry,
  markSettled,
  markWave,
  NO_ACKNOWLEDGEMENTS,
} from "../../store/outbox/marks";
import type { Claim, OutboxItem } from "../../store/outbox/types";
import { watchDatabase, writeThroughOutage } from "../database-watch";
import type { DeliveryContext } from "./options";

type Sent = { claim: Claim; outcome: AttemptOutcome };

/**
 * Sends items marked DISPATCHED concurrently and settles every outcome but a plain 200 by the policy's rule, one
 * item at a time. The plain 200s come back unrecorded: the next wave's write records them with its DISPATCHED
 * marks, in one statement (`writeWave`), or a last write on their own when no wave follows.
 */
export async function sendDispatched(ctx: DeliveryContext, dispatched: Claim[]): Promise<Acknowledgements> {
  if (dispatched.length === 0) return NO_ACKNOWLEDGEMENTS;
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
  for (const { claim, outcome } of results.filter((r) => !plainAck(r))) {
    await settle(ctx, claim, outcome, at).catch((error: Error) => {
      if (!watchDatabase(ctx.store, ctx.log).outage(error))
        ctx.log.error({ key: claim.item.id, err: error.message }, "delivery step failed");
    });
  }
  return { claims: results.filter(plainAck).map((r) => r.claim), result: `HTTP 200 at ${at.toISOString()}` };
}

/**
 * One write per wave: the previous wave's plain 200s acknowledged and this wave's claims marked DISPATCHED,
 * in one statement (store/outbox/marks.ts), then the acknowledged items observed. Returns the claims that may
 * be sent.
 */
export async function writeWave(ctx: DeliveryContext, acks: Acknowledgements, dispatch: Claim[]): Promise<Claim[]> {
  const acked = acks.claims;
  if (acked.length) ctx.faults.reach("before-acknowledge");
  if (acked.length && ctx.faults.pausing("before-acknowledge")) await ctx.faults.halt("before-acknowledge");
  // The answers it carries are written through an outage; the marks are then taken at the time of the write.
  const write = () => markWave(ctx.store, acks, dispatch, ctx.now());
  const written = await (acked.length ? answerWritten(ctx, write) : write());
  if (acked.length) ctx.faults.reach("after-acknowledge");
  if (acked.length && ctx.faults.pausing("after-acknowledge")) await ctx.faults.halt("after-acknowledge");
  // Answered 200, but the lease had passed to another attempt: the effect may exist twice.
  for (let i = written.acknowledged; i < acked.length; i++) ctx.metrics.duplicateEffectDetected();
  for (const claim of acked) await observe(ctx, claim.item);
  return written.dispatched;
}

/**
 * Records one attempt's outcome other than a plain 200, by the policy's rule, with one warn line per failed
 * attempt and an error line when the item is given up.
 */
async function settle(ctx: DeliveryContext, claim: Claim, outcome: AttemptOutcome, at: Date): Promise<void> {
  const { db, metrics, log } = ctx;
  const attempts = claim.item.attempts + 1;
  if (outcome.kind === "acknowledged") {
    const answer = `HTTP ${outcome.status} at ${at.toISOString()}`;
    if (await answerWritten(ctx, () => markAcknowledged(db, claim, answer))) await observe(ctx, claim.item);
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
    await answerWritten(ctx, () => markSettled(db, claim, next.state, result));
    if (next.state === "FAILED") metrics.deliveryPermanentFailure(claim.item.kind);
    log.error({ ...line, state: next.state }, "delivery given up");
    return;
  }
  await answerWritten(ctx, () => markRetry(db, claim, next.at, result, next.state));
  log.warn({ ...line, nextAttemptAt: next.at.toISOString(), state: next.state }, "delivery attempt failed");
}

/** The record of a destination's answer, written once the database is back if it went away meanwhile. */
function answerWritten<T>(ctx: DeliveryContext, write: () => Promise<T>): Promise<T> {
  return writeThroughOutage(ctx.store, ctx.log, write, ctx.leaseMs);
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
