import type { Client } from "discord.js";
import type { ChatLog } from "../../bot/surfaces/chat/types";

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON.parse that answers undefined for text that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The fields discord.js reads without checking when it builds an interaction. A packet without them would
 * throw inside the library (`{"type":2}` reads `data.data.type`); such a packet is not Discord's and is dropped.
 */
export function isWellFormedInteraction(data: unknown): boolean {
  if (!isRecord(data) || typeof data.id !== "string" || typeof data.token !== "string") return false;
  if (typeof data.type !== "number" || typeof data.application_id !== "string") return false;
  if (data.type !== 1 && !isRecord(data.data)) return false;
  const user = isRecord(data.member) ? data.member.user : data.user;
  return data.type === 1 || (isRecord(user) && typeof user.id === "string");
}

/** Hands an interaction to discord.js's own handler; false (nothing done) for one it cannot take. */
export function dispatchInteraction(action: { handle(data: unknown): void }, data: unknown): boolean {
  if (!isWellFormedInteraction(data)) return false;
  try {
    action.handle(data);
    return true;
  } catch {
    return false;
  }
}

/**
 * discord.js handles each gateway dispatch synchronously inside the socket's message event, where a throw
 * becomes an unhandled rejection and, without a process policy, the end of the process for every tenant.
 * Every dispatch is therefore handled inside a try: a packet the library cannot take is logged and dropped.
 */
export function guardGatewayPackets(client: Client, log: ChatLog): void {
  const ws = client.ws as unknown as { handlePacket(packet?: unknown, shard?: unknown): boolean };
  const handlePacket = ws.handlePacket.bind(ws);
  ws.handlePacket = (packet, shard) => {
    if (isRecord(packet) && packet.t === "INTERACTION_CREATE" && !isWellFormedInteraction(packet.d)) {
      log.warn({ event: packet.t }, "discord gateway packet dropped: malformed");
      return true;
    }
    try {
      return handlePacket(packet, shard);
    } catch (error) {
      const event = isRecord(packet) ? String(packet.t) : "unknown";
      log.warn(
        { event, err: (error as Error).message },
        "discord gateway packet dropped: the library could not read it",
      );
      return true;
    }
  };
}
