import { createPublicKey, verify } from "node:crypto";
import type { Client } from "discord.js";
import type { ChatLog, RawHttpRoute } from "../../bot/surfaces/chat/types";
import { header } from "../../bot/surfaces/chat/types";
import { dispatchInteraction, isRecord, parseJson } from "./packet-guard";

/** DER prefix that wraps a raw 32-byte Ed25519 key into SPKI, the form node:crypto accepts. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
/** Discord's timestamp is signed too; refusing old ones stops replays of a captured request. */
const MAX_AGE_S = 300;

/**
 * `POST /discord/interactions`: Discord's HTTP interactions endpoint, verified with Ed25519 over
 * `timestamp + body`. A verified interaction is handed to discord.js as if it came over the gateway, so the
 * same listeners answer it (through the REST callback endpoint); the HTTP answer is a bare 202.
 */
export function interactionsRoute(client: Client, publicKeyHex: string, log: ChatLog): RawHttpRoute {
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyHex, "hex")]),
    format: "der",
    type: "spki",
  });
  // discord.js has no public entry for HTTP interactions; this is the handler its gateway uses.
  const gatewayActions = (client as unknown as { actions: { InteractionCreate: { handle(data: unknown): void } } })
    .actions;
  return {
    path: "/discord/interactions",
    async handle(request) {
      const signature = header(request, "x-signature-ed25519") ?? "";
      const timestamp = header(request, "x-signature-timestamp") ?? "";
      const age = Math.abs(Date.now() / 1000 - Number(timestamp));
      if (!(age <= MAX_AGE_S) || !verifies(key, timestamp + request.body, signature)) {
        return { status: 401, body: "invalid request signature" };
      }
      const data = parseJson(request.body);
      if (data === undefined) return { status: 400, body: "invalid JSON" };
      if (isRecord(data) && data.type === 1) return { status: 200, body: { type: 1 } }; // PING -> PONG
      // Signed but malformed (`null`, `{"type":2}` without data): acknowledged like any other and dropped, as
      // discord.js would throw building it.
      if (!dispatchInteraction(gatewayActions.InteractionCreate, data)) {
        log.warn({ type: isRecord(data) ? String(data.type) : typeof data }, "discord interaction dropped: malformed");
      }
      return { status: 202 };
    },
  };
}

function verifies(key: ReturnType<typeof createPublicKey>, message: string, signatureHex: string): boolean {
  try {
    return verify(null, Buffer.from(message), key, Buffer.from(signatureHex, "hex"));
  } catch {
    return false;
  }
}
