import crypto from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { type Card, parseButtonValue, type Reply } from "../chat/types";
import { agentOfTenant } from "../http/auth";
import { ApiError } from "../http/errors";
import { agentPage } from "./agent-page";
import { fieldsOf, formOf } from "./form";
import type { ConsoleOptions } from "./options";
import { ok, refused, sendPage } from "./pages";
import type { Note } from "./views";
import { recordWebMessage, recordWebNote, webActor, webTransport } from "./web-chat";

const AgentName = z.object({ agent: z.string().min(1).max(200) });
const PauseForm = z.object({
  reason: z.string().trim().min(1, "a reason is required").max(500),
  until: z.string().trim().max(100).default(""),
});
const CardForm = z.object({ button: z.string().max(100) });
const ChatForm = z.object({ text: z.string().trim().min(1, "type a message").max(4000) });

/** Pause, resume (preflight, then Confirm), the card's buttons and the chat box: all through the chat router. */
export function registerAgentRoutes(scope: FastifyInstance, options: ConsoleOptions): void {
  const { ctx, router } = options;

  async function show(request: FastifyRequest, reply: FastifyReply, notes: Note[] = [], card: Card | null = null) {
    const session = request.consoleSession!;
    const { agent: name } = fieldsOf(request.params, AgentName);
    const agent = await agentOfTenant(ctx.store.db, session.user.tenantId, name);
    const page = await agentPage(ctx, session.user, agent, card);
    const path = `/agents/${encodeURIComponent(agent.name)}`;
    return sendPage(reply, session, "agent", { title: agent.name, section: "agent", path, notes }, page);
  }

  /** The agent of the URL, in the caller's tenant (another tenant's is a 404). */
  async function agentOf(request: FastifyRequest) {
    const { agent } = fieldsOf(request.params, AgentName);
    return agentOfTenant(ctx.store.db, request.consoleSession!.user.tenantId, agent);
  }

  const asNote = (answer: Reply, refusal: boolean): Note =>
    answer.kind === "text" ? (refusal ? refused(answer.text) : ok(answer.text)) : ok(answer.card.title);

  scope.get("/agents/:agent", async (request, reply) => show(request, reply));

  scope.post("/agents/:agent/pause", async (request, reply) => {
    const session = request.consoleSession!;
    const form = formOf(request, session, PauseForm);
    const agent = await agentOf(request);
    // The same words a person types after /pause, so the same parse, rules and answer as chat.
    const text = `${agent.name} ${form.reason}${form.until ? ` until ${form.until}` : ""}`;
    const command = { name: "pause" as const, text, actor: webActor(session.user), channelId: "console" };
    const answer = await router.command(command, webTransport);
    return show(request, reply, [asNote(answer, answer.kind === "text" && answer.ephemeral)]);
  });

  scope.post("/agents/:agent/resume", async (request, reply) => {
    const session = request.consoleSession!;
    formOf(request, session, z.object({}));
    const agent = await agentOf(request);
    const command = { name: "resume" as const, text: agent.name, actor: webActor(session.user), channelId: "console" };
    const answer = await router.command(command, webTransport);
    if (answer.kind === "card") return show(request, reply, [], answer.card);
    return show(request, reply, [refused(answer.text)]);
  });

  scope.post("/agents/:agent/card", async (request, reply) => {
    const session = request.consoleSession!;
    const form = formOf(request, session, CardForm);
    await agentOf(request);
    const button = parseButtonValue(form.button);
    if (!button) throw new ApiError("invalid_body", "button: not a console button");
    const result = await router.interaction(
      {
        interactionId: crypto.randomUUID(),
        action: button.action,
        token: button.token,
        actor: webActor(session.user),
        card: { channelId: "console", messageId: button.token },
      },
      webTransport,
    );
    const settled = result.card && result.card.buttons.length === 0;
    return show(
      request,
      reply,
      [settled || !result.card ? ok(result.note) : refused(result.note)],
      result.card ?? null,
    );
  });

  scope.post("/agents/:agent/chat", async (request, reply) => {
    const session = request.consoleSession!;
    const form = formOf(request, session, ChatForm);
    const agent = await agentOf(request);
    const { channelId, messageId } = await recordWebMessage(ctx, session.user, agent, form.text);
    const message = {
      messageId,
      channelId,
      text: form.text,
      actor: webActor(session.user),
      isDirect: true,
      agentName: agent.name,
    };
    const answer = await router.message(message, webTransport);
    if (answer?.kind === "text") await recordWebNote(ctx, channelId, answer.text);
    return show(request, reply, answer?.kind === "text" ? [refused(answer.text)] : []);
  });
}
