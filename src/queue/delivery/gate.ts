import { afterUncertainOutcome, parseContract } from "../../policy/delivery";
import { unknownOutcomeText } from "../../policy/delivery-class";
import { readGateControls } from "../../store/control/gate";
import { type Controls, gateOf } from "../../store/control/records";
import { markAcknowledged, markObserved, markSettled, releaseLease } from "../../store/outbox/marks";
import type { Claim } from "../../store/outbox/types";
import type { DeliveryContext } from "./options";

/** How stale a round's gate reading may get before the next wave reads it again. */
const GATE_MAX_AGE_MS = 100;

export interface Gate {
  controls: Controls;
  readAt: number;
}

/** The control records of a round's claims (fail closed: a failed read holds everything). */
export async function readGate(ctx: DeliveryContext, claims: Claim[]): Promise<Gate> {
  const controls = await readGateControls(
    ctx.store,
    claims.map((c) => c.item),
  );
  return { controls, readAt: ctx.now().getTime() };
}

/** The round's reading, read again once it is GATE_MAX_AGE_MS old, so a pause during a long round stops it. */
export async function freshGate(ctx: DeliveryContext, gate: Gate | null, claims: Claim[]): Promise<Gate> {
  return gate && ctx.now().getTime() - gate.readAt <= GATE_MAX_AGE_MS ? gate : readGate(ctx, claims);
}

/** The wave's claims that may go: gate open, and an uncertain earlier attempt resolved. */
export async function openClaims(ctx: DeliveryContext, wave: Claim[], { controls }: Gate): Promise<Claim[]> {
  const open: Claim[] = [];
  for (const claim of wave) {
    const { agentId, tenantId } = claim.item;
    if (gateOf(controls, agentId, tenantId).held) {
      await releaseLease(ctx.db, claim);
      continue;
    }
    if (claim.item.state === "DISPATCHED" && claim.item.firstDispatchedAt) {
      if (!(await resolveUncertain(ctx, claim, claim.item.firstDispatchedAt))) continue;
    }
    open.push(claim);
  }
  return open;
}

/** An earlier attempt never acknowledged. Returns true when sending again with the same key is safe (also the recovery's rule, recovery.ts). */
export async function resolveUncertain(ctx: DeliveryContext, claim: Claim, firstDispatchedAt: Date): Promise<boolean> {
  const { db, metrics } = ctx;
  const contract = parseContract(claim.item.contract) ?? { kind: "none" as const };
  const step = afterUncertainOutcome(contract, firstDispatchedAt, ctx.now());
  if (step === "retry_same_key") return true;
  const { attempts, lastAttemptAt, lastResult, contract: contractName } = claim.item;
  const previous = `attempt ${attempts} at ${lastAttemptAt?.toISOString() ?? "?"}: ${lastResult ?? "no answer"}`;
  if (step === "lookup" && contract.lookupUrl) {
    const answer = await ctx.transport.lookup(contract.lookupUrl, claim.item.id);
    if (answer === "absent") return true;
    if (answer === "present") {
      metrics.duplicateSuppressed("lookup");
      if (await markAcknowledged(db, claim, `found by lookup after ${previous}`)) {
        await markObserved(db, claim.item.id, ctx.now());
      }
      return false;
    }
  }
  await markSettled(db, claim, "NEEDS_REVIEW", unknownOutcomeText(attempts, lastAttemptAt, lastResult, contractName));
  return false;
}
