import type { FastifyInstance } from "fastify";
import { isSignedWith } from "../../../policy/webhook-verify";
import type { HandlerContext } from "../../app/context";
import { DEMO } from "../../app/demo/seed";
import { whenToSecond } from "../chat/words";
import { renderPage } from "./render";
import { webPublisher } from "./web-chat";

const KEEP = 50;

interface Received {
  at: Date;
  summary: string;
  body: string;
}

/** One line for what arrived: the delivery's kind and its Idempotency-Key. */
function summarise(body: Record<string, unknown>, key: string | undefined): string {
  const kind =
    typeof body.type === "string"
      ? body.type
      : typeof body.operation === "string"
        ? `action ${body.operation}`
        : "delivery";
  return key ? `${kind} · ${key}` : kind;
}

/** What the demo's receiver needs: the key the demo's agent signs with, known only to this demo's processes. */
export interface DemoReceiverOptions {
  key: Buffer;
}

export interface DemoReceiver {
  /** What arrived, newest first. */
  received(): Received[];
  /** Called once the demo is seeded: until then, and on any other config, the receiver is not there (404). */
  open(): void;
}

function readinessAnswer(body: Record<string, unknown>) {
  const last = body.lastCheckpoint as { name?: unknown } | null | undefined;
  return { ready: true, checkpoint: typeof last?.name === "string" ? last.name : null };
}

const header = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

/**
 * The offline demo's stand-in for the agent and its destinations (`/demo/receiver`, declared in
 * holdfast.example.yaml like every address Holdfast sends to). It takes only what this demo's Holdfast sent:
 * a delivery signed with the demo's own key (Standard Webhooks, as every delivery of a signed agent), else
 * 401; so no page and no other program can write into a console chat through it. It answers 200 (and the
 * resume's readiness call with the checkpoint Holdfast recorded), keeps the
 * last 50 in memory and shows them; a message from the console's chat box gets a short reply, as an agent
 * would send one through `POST /v1/agents/:agent/messages`.
 */
export function registerDemoReceiver(app: FastifyInstance, ctx: HandlerContext, options: DemoReceiverOptions) {
  const received: Received[] = [];
  const replies = webPublisher(ctx);
  let seeded = false;

  app.register(async (scope) => {
    // The signature covers the exact bytes sent, so the body stays text until it is verified.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

    scope.post(DEMO.receiverPath, async (request, reply) => {
      if (!seeded) return reply.status(404).send({ error: "not_found", message: "no demo runs here" });
      const text = typeof request.body === "string" ? request.body : "";
      const signature = {
        id: header(request.headers["webhook-id"]),
        timestamp: header(request.headers["webhook-timestamp"]),
        signature: header(request.headers["webhook-signature"]),
      };
      if (!isSignedWith(options.key, signature, text, Math.floor(ctx.now().getTime() / 1000))) {
        return reply.status(401).send({ error: "unauthorized", message: "not signed by this demo's Holdfast" });
      }
      const body = parsedObject(text);
      const key = header(request.headers["idempotency-key"]);
      received.unshift({ at: ctx.now(), summary: summarise(body, key), body: JSON.stringify(body, null, 2) });
      received.splice(KEEP);
      ctx.log.debug({ demo: "receiver", key }, "demo receiver got a delivery");
      // The demo's agent keeps no state of its own: it stands where Holdfast recorded it, so it confirms that.
      if (body.type === "holdfast.readiness") return reply.status(200).send(readinessAnswer(body));
      if (body.type === "chat.message" && body.platform === "web" && typeof body.channel === "string") {
        const said = `Demo ${body.agent ?? "agent"} here: I got “${String(body.text).slice(0, 200)}”. Conversation reaches me even while I am paused; my outbound work waits.`;
        await replies.say(body.channel, said);
      }
      return reply.status(200).send({ ok: true });
    });

    scope.get(DEMO.receiverPath, async (_request, reply) => {
      if (!seeded) return reply.status(404).send({ error: "not_found", message: "no demo runs here" });
      const frame = {
        title: "Demo receiver",
        section: "demo" as const,
        path: DEMO.receiverPath,
        user: null,
        csrf: "",
        notes: [],
      };
      const page = { received: received.map((r) => ({ at: whenToSecond(r.at), summary: r.summary, body: r.body })) };
      return reply
        .type("text/html; charset=utf-8")
        .header("cache-control", "no-store")
        .send(renderPage("demo-receiver", frame, page));
    });
  });
  const receiver: DemoReceiver = {
    received: () => [...received],
    open: () => {
      seeded = true;
    },
  };
  return receiver;
}

/** A signed body is Holdfast's own JSON; anything else is shown as its text. */
function parsedObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text };
  }
}
