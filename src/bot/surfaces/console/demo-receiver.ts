import type { FastifyInstance } from "fastify";
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

function readinessAnswer(body: Record<string, unknown>) {
  const last = body.lastCheckpoint as { name?: unknown } | null | undefined;
  return { ready: true, checkpoint: typeof last?.name === "string" ? last.name : null };
}

/**
 * The offline demo's stand-in for the agent and its destinations (`/demo/receiver`, declared in
 * holdfast.example.yaml like every address Holdfast sends to). It answers 200 to every delivery (and the
 * resume's readiness call with the checkpoint Holdfast recorded), keeps the
 * last 50 in memory and shows them; a message from the console's chat box gets a short reply, as an agent
 * would send one through `POST /v1/agents/:agent/messages`.
 */
export function registerDemoReceiver(app: FastifyInstance, ctx: HandlerContext): { received: () => Received[] } {
  const received: Received[] = [];
  const replies = webPublisher(ctx);

  app.post(DEMO.receiverPath, async (request, reply) => {
    const body = (request.body && typeof request.body === "object" ? request.body : {}) as Record<string, unknown>;
    const key = request.headers["idempotency-key"];
    received.unshift({
      at: ctx.now(),
      summary: summarise(body, typeof key === "string" ? key : undefined),
      body: JSON.stringify(body, null, 2),
    });
    received.splice(KEEP);
    ctx.log.debug({ demo: "receiver", key }, "demo receiver got a delivery");
    // The demo's agent keeps no state of its own: it stands where Holdfast recorded it, so it confirms that.
    if (body.type === "holdfast.readiness") return reply.status(200).send(readinessAnswer(body));
    if (body.type === "chat.message" && body.platform === "web" && typeof body.channel === "string") {
      const text = `Demo ${body.agent ?? "agent"} here: I got “${String(body.text).slice(0, 200)}”. Conversation reaches me even while I am paused; my outbound work waits.`;
      await replies.say(body.channel, text);
    }
    return reply.status(200).send({ ok: true });
  });

  app.get(DEMO.receiverPath, async (_request, reply) => {
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
  return { received: () => [...received] };
}
