import http from "node:http";
import type { AddressInfo } from "node:net";
import { readinessReply } from "./agent-stand-in";

/** What the receiver does with one request. */
export type ReceiverBehaviour =
  | { kind: "ok" }
  | { kind: "status"; status: number }
  /** Applies the effect, then cuts the connection before answering: the sender cannot know it happened. */
  | { kind: "apply-then-drop" }
  /** Holds the request open for `ms` before applying and answering (an effect in flight). */
  | { kind: "slow"; ms: number }
  /** Applies the effect at once, then holds the answer for `ms` (the effect happened; the sender can't know). */
  | { kind: "apply-then-hold"; ms: number };

export interface ReceivedCall {
  key: string;
  kind: string;
  body: unknown;
  at: number;
  /** The request's path, without the query. */
  path: string;
}

export interface EffectReceiver {
  url: string;
  /** Every POST, in arrival order. */
  calls: ReceivedCall[];
  /** Effects applied, per Idempotency-Key. With `dedupe`, a repeated key is acknowledged but not applied again. */
  applied: Map<string, number>;
  /**
   * The resume's readiness calls it was asked, and how it answers them (default: at the recorded checkpoint;
   * `undefined`: it never answers).
   */
  readiness: unknown[];
  answerReadiness: (asked: { lastCheckpoint?: { name?: unknown } | null }) => unknown;
  /** Decides each request's fate; default: apply and answer 200. */
  behave: (call: ReceivedCall, index: number) => ReceiverBehaviour;
  waitForCalls(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local stand-in for an agent webhook or an external destination. It counts calls and applied records
 * per key, so tests can prove "exactly one effect per action". GET /status?key=K answers 200 when an effect
 * with key K was applied and 404 when not (a status-lookup endpoint).
 */
export async function startEffectReceiver(options: { dedupe?: boolean } = {}): Promise<EffectReceiver> {
  const receiver: EffectReceiver = {
    url: "",
    calls: [],
    applied: new Map(),
    readiness: [],
    answerReadiness: readinessReply,
    behave: () => ({ kind: "ok" }),
    async waitForCalls(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.calls.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} calls, saw ${receiver.calls.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => {},
  };
  const apply = (key: string) => {
    if (options.dedupe && receiver.applied.has(key)) return;
    receiver.applied.set(key, (receiver.applied.get(key) ?? 0) + 1);
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname.endsWith("/status")) {
      res.writeHead(receiver.applied.has(url.searchParams.get("key") ?? "") ? 200 : 404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    // The resume's readiness call asks the agent, it is no effect: answered in step with the record, not counted.
    if (text.includes('"holdfast.readiness"')) {
      const asked = JSON.parse(text);
      if (asked.type === "holdfast.readiness") {
        receiver.readiness.push(asked);
        const answer = receiver.answerReadiness(asked);
        if (answer !== undefined)
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
        return;
      }
    }
    const call: ReceivedCall = {
      key: String(req.headers["idempotency-key"] ?? ""),
      kind: String(req.headers["x-holdfast-kind"] ?? ""),
      body: text ? JSON.parse(text) : null,
      at: Date.now(),
      path: url.pathname,
    };
    receiver.calls.push(call);
    const behaviour = receiver.behave(call, receiver.calls.length - 1);
    switch (behaviour.kind) {
      case "status":
        res.writeHead(behaviour.status).end();
        return;
      case "apply-then-drop":
        apply(call.key);
        res.socket?.destroy();
        return;
      case "apply-then-hold":
        apply(call.key);
        await new Promise((r) => setTimeout(r, behaviour.ms));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      case "slow":
        await new Promise((r) => setTimeout(r, behaviour.ms));
        apply(call.key);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      case "ok":
        apply(call.key);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
