import { laneOf } from "../../policy/ids";
import { markDispatchedMany } from "../../store/outbox/marks";
import type { Claim } from "../../store/outbox/types";
import { watchDatabase } from "../database-watch";
import { freshGate, type Gate, openClaims } from "./gate";
import type { DeliveryContext } from "./options";
import { sendDispatched } from "./settle";

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
 */
export async function sendWaves(ctx: DeliveryContext, claims: Claim[]): Promise<void> {
  const lanes = lanesOf(claims);
  const depth = Math.max(0, ...lanes.map((l) => l.length));
  let gate: Gate | null = null;
  for (let k = 0; k < depth; k++) {
    const wave = lanes.flatMap((lane) => (lane[k] ? [lane[k]!] : []));
    gate = await freshGate(ctx, gate, claims);
    await openClaims(ctx, wave, gate)
      .then((open) => sendWave(ctx, open))
      .catch((error: Error) => waveFailed(ctx, error));
  }
}

/** One wave (at most one item per lane): DISPATCHED is persisted for the whole wave before any send. */
async function sendWave(ctx: DeliveryContext, wave: Claim[]): Promise<void> {
  await sendDispatched(ctx, await markDispatchedMany(ctx.store, wave, ctx.now()));
}

/** A round of items dispatched elsewhere (the intake): one wave, as each is alone in its lane. */
export async function sendDispatchedWave(ctx: DeliveryContext, claims: Claim[]): Promise<void> {
  await sendDispatched(ctx, claims).catch((error: Error) => waveFailed(ctx, error));
}

/** A lost database is the watch's one line when it goes and one when it is back, not one per wave. */
function waveFailed(ctx: DeliveryContext, error: Error): void {
  if (!watchDatabase(ctx.store, ctx.log).outage(error)) ctx.log.error({ err: error.message }, "delivery wave failed");
}
