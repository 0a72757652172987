import crypto from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { addHoldfastNote, addPersonMessage } from "../../app/console/web-messages";
import type { HandlerContext } from "../../app/context";
import { pauseAgent } from "../../app/control/pause";
import type { KnownAgent, KnownUser } from "../../app/records";
import { untilArg } from "../chat/pause-args";
import { refusalText } from "../chat/refusals";
import { finishResume, startResume } from "../chat/resume-flow";
import { type Card, parseButtonValue } from "../chat/types";
import { pauseText } from "../chat/words";
import { agentOfTenant } from "../http/auth";
import { ApiError } from "../http/errors";
import { agentPage } from "./agent-page";
import { fieldsOf, formOf } from "./form";
import type { ConsoleOptions } from "./options";
import { ok, refused, sendPage } from "./pages";
import type { Note } from "./views";
import { webActor, webTransport } from "./web-chat";

const AgentName = z.object({ agent: z.string().min(1).max(200) });
const PauseForm = z.object({
  reason: z.string().trim().min(1, "a reason is required").max(500),
  until: z.string().trim().max(100).default(""),
});
const CardForm = z.object({ button: z.string().max(100), reason: z.string().trim().max(500).optional() });
const ChatForm = z.object({ text: z.string().trim().min(1, "type a message").max(4000) });

/** A refusal in the words chat uses for it, as the console's platform says it. */
const refusalNote = (refusal: Parameters<typeof refusalText>[0]): Note => refused(refusalText(refusal, "web"));

/**
 * Pause, resume (preflight, then Confirm) and the card's buttons call the same use cases as chat, with typed
 * arguments, and answer in chat's words; the chat box goes through the chat router, as a message.
 */
export function registerAgentRoutes(scope: FastifyInstance, options: ConsoleOptions): void {
  const { ctx } = options;

  /** The signed-in person, the form's fields, and the agent of the URL in their tenant (another's is a 404). */
  async function formFor<T extends z.ZodType>(request: FastifyRequest, schema: T) {
    const session = request.consoleSession!;
    const form = formOf(request, session, schema);
    const { agent: name } = fieldsOf(request.params, AgentName);
    return { user: session.user, form, agent: await agentOfTenant(ctx, session.user.tenantId, name) };
  }

  async function show(request: FastifyRequest, reply: FastifyReply, notes: Note[] = [], card: Card | null = null) {
    const session = request.consoleSession!;
    const { agent: name } = fieldsOf(request.params, AgentName);
    const agent = await agentOfTenant(ctx, session.user.tenantId, name);
    const page = await agentPage(ctx, session.user, agent, card);
    const path = `/agents/${encodeURIComponent(agent.name)}`;
    return sendPage(reply, session, "agent", { title: agent.name, section: "agent", path, notes }, page);
  }

  scope.get("/agents/:agent", async (request, reply) => show(request, reply));

  scope.post("/agents/:agent/pause", async (request, reply) => {
    const { user, form, agent } = await formFor(request, PauseForm);
    return show(request, reply, [await pause(ctx, user, agent, form)]);
  });

  scope.post("/agents/:agent/resume", async (request, reply) => {
    const { user, agent } = await formFor(request, z.object({}));
    const started = await startResume(ctx, user, agent, webTransport);
    if ("card" in started) return show(request, reply, [], started.card);
    return show(request, reply, [refusalNote(started.refusal)]);
  });

  scope.post("/agents/:agent/card", async (request, reply) => {
    const { user, form } = await formFor(request, CardForm);
    const button = parseButtonValue(form.button);
    if (!button) throw new ApiError("invalid_body", "button: not a console button");
    const click = {
      interactionId: crypto.randomUUID(),
      action: button.action,
      token: button.token,
      actor: webActor(user),
      card: { channelId: "console", messageId: button.token },
      ...(form.reason ? { reason: form.reason } : {}),
    };
    const outcome = await finishResume(ctx, user, click, webTransport);
    if ("refusal" in outcome) return show(request, reply, [refusalNote(outcome.refusal)], outcome.card ?? null);
    const settled = outcome.card && outcome.card.buttons.length === 0;
    return show(request, reply, [settled || !outcome.card ? ok(outcome.note) : refused(outcome.note)], outcome.card);
  });

  scope.post("/agents/:agent/chat", async (request, reply) => {
    const { user, form, agent } = await formFor(request, ChatForm);
    const { channelId, messageId } = await addPersonMessage(ctx, user, agent, form.text);
    const message = {
      messageId,
      channelId,
      text: form.text,
      actor: webActor(user),
      isDirect: true,
      agentName: agent.name,
    };
    const answer = await options.router.message(message, webTransport);
    if (answer?.kind === "text") await addHoldfastNote(ctx, channelId, answer.text);
    return show(request, reply, answer?.kind === "text" ? [refused(answer.text)] : []);
  });
}

/** The pause use case with the form's reason and until; a bad until is refused in chat's words. */
async function pause(
  ctx: HandlerContext,
  user: KnownUser,
  agent: KnownAgent,
  form: { reason: string; until: string },
): Promise<Note> {
  const until = form.until ? untilArg(form.until, ctx.now()) : null;
  if (until && !until.ok) return refusalNote({ code: until.code, agent: agent.name });
  const result = await pauseAgent(ctx, { user, agent, reason: form.reason, until: until?.at ?? null });
  return ok(pauseText(result, user.name));
}
