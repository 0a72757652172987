import type { AddressInfo } from "node:net";
import { type ApplicationFlags, GatewayOpcodes, type GatewayReadyDispatchData } from "discord.js";
import { type WebSocket, WebSocketServer } from "ws";
import { discordUser } from "./discord-payloads";

// Just enough of Gateway v10 (JSON, no compression) for discord.js to log in and receive dispatches.
// discord.js only speaks plain JSON here because the optional zlib-sync native is not installed.

export interface GatewayPayload {
  op: number;
  d: unknown;
  s?: number | null;
  t?: string | null;
}

export interface FakeGateway {
  url: string;
  /** Everything clients sent, in order (IDENTIFY, heartbeats, ...). */
  received: GatewayPayload[];
  /** Resolves once a client has identified and been sent READY. */
  ready: Promise<void>;
  dispatch(event: string, data: unknown): void;
  close(): Promise<void>;
}

/** Long enough that discord.js never heartbeats during a short test unless its jitter says so. */
const HEARTBEAT_INTERVAL_MS = 41_250;

export async function startFakeGateway(applicationId: string, botUserId: string): Promise<FakeGateway> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const received: GatewayPayload[] = [];
  // Sequence numbers are per session; discord.js uses them to resume.
  const sessions = new Map<WebSocket, { seq: number }>();
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const send = (ws: WebSocket, payload: GatewayPayload) => ws.send(JSON.stringify(payload));
  const dispatchTo = (ws: WebSocket, event: string, data: unknown) => {
    const session = sessions.get(ws);
    if (!session) return;
    send(ws, { op: GatewayOpcodes.Dispatch, t: event, s: ++session.seq, d: data });
  };

  wss.on("connection", (ws) => {
    send(ws, { op: GatewayOpcodes.Hello, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS }, s: null, t: null });
    ws.on("message", (raw) => {
      const payload = JSON.parse(String(raw)) as GatewayPayload;
      received.push(payload);
      if (payload.op === GatewayOpcodes.Heartbeat) {
        send(ws, { op: GatewayOpcodes.HeartbeatAck, d: null, s: null, t: null });
      } else if (payload.op === GatewayOpcodes.Identify) {
        sessions.set(ws, { seq: 0 });
        const readyData: GatewayReadyDispatchData = {
          v: 10,
          user: { ...discordUser(botUserId, "holdfast", true), bot: true },
          // No guilds, so discord.js emits ClientReady at once instead of waiting for GUILD_CREATEs.
          guilds: [],
          session_id: `session-${sessions.size}`,
          resume_gateway_url: url,
          shard: [0, 1],
          // No application flags set; the enum has no zero member, hence the cast.
          application: { id: applicationId, flags: 0 as ApplicationFlags, flags_new: "0" },
        };
        dispatchTo(ws, "READY", readyData);
        markReady();
      }
    });
    ws.on("close", () => sessions.delete(ws));
  });

  return {
    url,
    received,
    ready,
    dispatch(event, data) {
      if (sessions.size === 0) throw new Error(`dispatch(${event}): no client has identified with the fake gateway`);
      for (const ws of sessions.keys()) dispatchTo(ws, event, data);
    },
    close() {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
