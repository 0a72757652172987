import type { AttemptOutcome } from "../../policy/delivery";
import { classifyResponse } from "../../policy/delivery";
import type { OutboxItem } from "../../store/outbox";

export type LookupAnswer = "present" | "absent" | "unknown";

/** How deliveries leave the process; tests inject their own to drop responses or count calls. */
export interface DeliveryTransport {
  send(item: OutboxItem, attemptId: string): Promise<AttemptOutcome>;
  lookup(lookupUrl: string, key: string): Promise<LookupAnswer>;
}

/**
 * POSTs the payload as JSON with the item's key as `Idempotency-Key` on every attempt. A timeout or a
 * broken connection is `uncertain`: the destination may have applied the effect.
 */
export function httpTransport(timeoutMs = 10_000): DeliveryTransport {
  return {
    async send(item, attemptId) {
      try {
        const response = await fetch(item.destination, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "idempotency-key": item.id,
            "x-holdfast-attempt": attemptId,
            "x-holdfast-kind": item.kind,
          },
          body: item.payload,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.arrayBuffer().catch(() => undefined);
        return classifyResponse(response.status);
      } catch (error) {
        return { kind: "uncertain", error: (error as Error).message };
      }
    },
    async lookup(lookupUrl, key) {
      try {
        const url = new URL(lookupUrl);
        url.searchParams.set("key", key);
        const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await response.arrayBuffer().catch(() => undefined);
        if (response.status === 200) return "present";
        if (response.status === 404) return "absent";
        return "unknown";
      } catch {
        return "unknown";
      }
    },
  };
}
