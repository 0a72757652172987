import { Agent, request } from "undici";
import { signatureHeaders } from "../../policy/webhook-signature.mjs";
import { guardedLookup } from "../../queue/delivery/guarded-lookup.mjs";
import type { SigningKeys } from "../../queue/delivery/http-transport";

/** What the agent's webhook said: its status and body (at most MAX_BODY characters of it). */
export interface WebhookAnswer {
  status: number;
  text: string;
}

const MAX_BODY = 64 * 1024;

export type AgentPost = (
  url: string,
  signer: { agentId: string; webhookId: string },
  body: string,
  timeoutMs: number,
) => Promise<WebhookAnswer>;

/**
 * POSTs JSON to an agent over connections whose hostnames go through the address rule, signed with the
 * agent's key when it has one (Standard Webhooks, `webhook-id` = the Idempotency-Key), like every delivery.
 * Throws when nothing came back in time (refused, reset, timed out).
 */
export function agentPoster(signing: SigningKeys): AgentPost {
  const dispatcher = new Agent({ connect: { lookup: guardedLookup } });
  return async (url, signer, body, timeoutMs) => {
    const key = signing.get(signer.agentId);
    const signed = key ? signatureHeaders(key, signer.webhookId, Math.floor(Date.now() / 1000), body) : {};
    const response = await request(url, {
      method: "POST",
      dispatcher,
      headers: { "content-type": "application/json", "idempotency-key": signer.webhookId, ...signed },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = (await response.body.text()).slice(0, MAX_BODY);
    return { status: response.statusCode, text };
  };
}
