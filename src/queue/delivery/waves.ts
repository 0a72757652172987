import { laneOf } from "../../policy/ids";
import { type Acknowledgements, NO_ACKNOWLEDGEMENTS, releaseLease } from "../../store/outbox/marks";
import type { Claim } from "../../store/outbox/types";
import { watchDatabase } from "../database-watch";
import { freshGate, type Gate, openClaims } from "./gate";
import type { DeliveryContext } from "./options";
import { sendDispatched, writeWave } from "./settle";

/** A round's claims by lane, each lane in claim order (due order for a release). */
export function lanesOf(claims: Claim[]): Claim[][] {
  const lanes = new Map<string, Claim[]>();
  for (const claim of claims) {
    const lane = laneOf(claim.item.agentId, claim.item.destination);
    const queue = lanes.get(lane);
    if (queue) queue.push(claim);
    else lanes.set(lane, [claim]);
  }
  return [...lanes.values()];
}

/**
 * Sends a claimed round in waves. Items of one agent to one destination go one after another: wave k holds
 * the k-th item of every lane, and different lanes go out concurrently. The gate is read before the first
 * wave and again once it is old (gate.ts), so a pause that lands during a long round stops the waves after it.
 * Each wave's DISPATCHED marks carry the previous wave's acknowledgements (one write per wave); the last
 * wave's are written after it.
 */
export async function sendWaves(ctx: DeliveryContext, claims: Claim[]): Promise<void> {
  const lanes = lanesOf(claims);
  const depth = Math.max(0, ...lanes.map((l) => l.length));
  let gate: Gate | null = null;
  let acks = NO_ACKNOWLEDGEMENTS;
  for (let k = 0; k < depth; k++) {
    const wave = lanes.flatMap((lane) => (lane[k] ? [lane[k]!] : []));
    gate = await freshGate(ctx, gate, claims);
    let unwritten = acks; // the earlier wave's answers, until a write takes them
    const failure = await openClaims(ctx, wave, gate)
      .then((open) => {
        const written = writeWave(ctx, unwritten, open);
        unwritten = NO_ACKNOWLEDGEMENTS;
        return written;
      })
      .then((dispatched) => sendDispatched(ctx, dispatched))
      .then(
        (next) => {
          acks = next;
          return null;
        },
        (error: Error) => error,
      );
    if (!failure) continue;
    // Answers no write took (the wave failed before its write) still go: with the next wave, or at the end.
    acks = unwritten;
    if (waveFailed(ctx, failure)) {
      await giveBackAfterOutage(
        ctx,
        lanes.flatMap((lane) => lane.slice(k)),
      );
      break;
    }
  }
  await lastAcknowledgements(ctx, acks);
}

/**
 * A round cut by a lost database: its claims from the failed wave on were not sent (a wave's answers are
 * written through the outage, settle.ts), and their leases would keep their lanes shut until they ran out
 * (30 s by default) after the database is back. They are given back as soon as it answers; if it is still
 * down when the leases run out, there is nothing left to give.
 */
async function giveBackAfterOutage(ctx: DeliveryContext, unsent: Claim[]): Promise<void> {
  if (!(await watchDatabase(ctx.store, ctx.log).whenUp(ctx.leaseMs))) return;
  for (const claim of unsent) await releaseLease(ctx.db, claim).catch(() => {});
}

/** A round of items dispatched elsewhere (the intake): one wave, as each is alone in its lane. */
export async function sendDispatchedWave(ctx: DeliveryContext, claims: Claim[]): Promise<void> {
  const acks = await sendDispatched(ctx, claims).catch((error: Error) => {
    waveFailed(ctx, error);
    return NO_ACKNOWLEDGEMENTS;
  });
  await lastAcknowledgements(ctx, acks);
}

/** The acknowledgements no later wave carries, on their own. */
async function lastAcknowledgements(ctx: DeliveryContext, acks: Acknowledgements): Promise<void> {
  if (acks.claims.length)
    await writeWave(ctx, acks, []).catch((error: Error) => {
      waveFailed(ctx, error);
    });
}

/**
 * A lost database is the watch's one line when it goes and one when it is back, not one per wave. Returns
 * whether the failure was part of an outage.
 */
function waveFailed(ctx: DeliveryContext, error: Error): boolean {
  if (watchDatabase(ctx.store, ctx.log).outage(error)) return true;
  ctx.log.error({ err: error.message }, "delivery wave failed");
  return false;
}
