import { coalescedKey } from "./ids";

/** What happens to occurrences that were held (paused) or missed (nothing ran) when they are released. */
export type MisfirePolicy = "coalesce" | "all" | "skip";
export const MISFIRE_POLICIES: readonly MisfirePolicy[] = ["coalesce", "all", "skip"];

export interface HeldOccurrence {
  id: string;
  dueAt: Date;
}

/** One delivery to plan, and the occurrences it carries. */
export interface ReleasedDelivery {
  key: string;
  occurrenceIds: string[];
  payload: Record<string, unknown>;
}

export interface MisfirePlan {
  deliveries: ReleasedDelivery[];
  skipped: string[];
}

export interface ReleaseContext {
  agent: string;
  trigger: string;
  releaseId: string;
  payload: unknown;
  /** The hold window: from the pause (or the last recorded occurrence) to the release. */
  heldSince: Date | null;
  releasedAt: Date;
  /** Which coalesced delivery of this trigger in this release (see `coalescedKey`); default the first. */
  visit?: number;
}

/**
 * Applies a trigger's misfire policy to its held occurrences (design.md section 4):
 * coalesce: one delivery keyed `<agent>:<key>:release:<releaseId>` carrying the count and the due times;
 * all: one delivery per occurrence, in due order, each keyed by its own occurrence key;
 * skip: nothing is delivered, every occurrence is recorded as skipped.
 */
export function planMisfire(policy: MisfirePolicy, held: HeldOccurrence[], context: ReleaseContext): MisfirePlan {
  const ordered = [...held].sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
  if (ordered.length === 0) return { deliveries: [], skipped: [] };
  if (policy === "skip") return { deliveries: [], skipped: ordered.map((o) => o.id) };
  const base = { agent: context.agent, trigger: context.trigger, payload: context.payload };
  if (policy === "all") {
    return {
      deliveries: ordered.map((o) => ({
        key: o.id,
        occurrenceIds: [o.id],
        payload: { ...base, dueAt: o.dueAt.toISOString(), released: true },
      })),
      skipped: [],
    };
  }
  return {
    deliveries: [
      {
        key: coalescedKey(context.agent, context.trigger, context.releaseId, context.visit),
        occurrenceIds: ordered.map((o) => o.id),
        payload: {
          ...base,
          missed: ordered.length,
          dueTimes: ordered.map((o) => o.dueAt.toISOString()),
          holdWindow: {
            from: (context.heldSince ?? ordered[0]!.dueAt).toISOString(),
            to: context.releasedAt.toISOString(),
          },
        },
      },
    ],
    skipped: [],
  };
}

/** What a release will do with held occurrences: deliveries it sends (coalesced ones among them), rows it skips. */
export interface ReleaseForecast {
  /** Deliveries the release plans for trigger occurrences. */
  send: number;
  /** Of those, coalesced deliveries (one per trigger, carrying all of its held due times). */
  coalesced: number;
  /** Occurrences recorded SKIPPED, sent to nobody. */
  skip: number;
}

/** The counts `planMisfire` will come to, from each trigger's policy and number of held occurrences. */
export function forecastRelease(triggers: Array<{ misfire: MisfirePolicy; held: number }>): ReleaseForecast {
  const out: ReleaseForecast = { send: 0, coalesced: 0, skip: 0 };
  for (const { misfire, held } of triggers) {
    if (held === 0) continue;
    if (misfire === "skip") out.skip += held;
    else if (misfire === "all") out.send += held;
    else {
      out.send += 1;
      out.coalesced += 1;
    }
  }
  return out;
}
