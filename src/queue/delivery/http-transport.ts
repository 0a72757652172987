import http from "node:http";
import https from "node:https";
import type { AttemptOutcome } from "../../policy/delivery";
import { classifyResponse } from "../../policy/delivery";
import type { OutboxItem } from "../../store/outbox";

export type LookupAnswer = "present" | "absent" | "unknown";

/** How deliveries leave the process; tests inject their own to drop responses or count calls. */
export interface DeliveryTransport {
  send(item: OutboxItem, attemptId: string): Promise<AttemptOutcome>;
  lookup(lookupUrl: string, key: string): Promise<LookupAnswer>;
}

// Kept-alive connections: at hundreds of deliveries a second, a new connection per POST (and fetch's
// stream machinery) costs more CPU than the rest of the delivery step.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** POSTs a body and resolves with the status once the response has been read; rejects on a network error. */
function postJson(
  destination: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = 10_000,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(destination);
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
        agent: agents[url.protocol as "http:"],
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", reject);
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * POSTs the payload as JSON with the item's key as `Idempotency-Key` on every attempt. A timeout or a
 * broken connection is `uncertain`: the destination may have applied the effect.
 */
export function httpTransport(timeoutMs = 10_000): DeliveryTransport {
  const post = (destination: string, body: string, headers: Record<string, string>) =>
    postJson(destination, body, headers, timeoutMs);
  return {
    async send(item, attemptId) {
      try {
        const status = await post(item.destination, item.payload, {
          "content-type": "application/json",
          "idempotency-key": item.id,
          "x-holdfast-attempt": attemptId,
          "x-holdfast-kind": item.kind,
        });
        return classifyResponse(status);
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
