import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { HandlerContext } from "../../app/context";
import { type EscalationDeskItem, escalationDesk } from "../../app/escalation/escalation-desk";
import { acknowledge, NO_PLATFORM_WORDS, type PingView, takeOver } from "../../app/escalation/escalations";
import type { KnownUser } from "../../app/records";
import { pingText } from "../chat/ping-card";
import { ackNoteText, takeOverNoteText, when } from "../chat/words";
import { formOf } from "./form";
import { ok, refused, sendPage } from "./pages";
import type { EscalationRow, Note } from "./views";

const EscalationForm = z.object({
  id: z.string().regex(/^esc_[A-Za-z0-9_-]{1,64}$/, "an escalation id such as esc_…"),
});

const KIND_WORDS: Record<EscalationRow["kind"], string> = {
  approval: "An approval waits",
  paused: "A paused agent has work waiting",
  review: "A delivery needs review",
  delivery: "An action is not delivered",
};

/** One ping in words: its level, when, to whom, and where it was posted (or that it reached no platform). */
function pingLine(p: PingView): { sent: string; where: string } {
  const level = p.repeat ? `level ${p.level} (reminder ${p.repeat})` : `level ${p.level}`;
  const where = p.postedTo.map((t) => `${t.platform} ${t.channelId}`).join(", ");
  return {
    sent: `${level} at ${when(p.sentAt)} to ${p.notified.join(", ") || "nobody"}`,
    where: where || NO_PLATFORM_WORDS,
  };
}

/** An escalation in the same words as its ping card (surfaces/chat/ping-card.ts), plus the pings' ledger. */
function escalationRow({ view, facts, canTakeOver }: EscalationDeskItem): EscalationRow {
  const text = facts && pingText(facts);
  return {
    id: view.id,
    kind: view.kind,
    title: `${KIND_WORDS[view.kind]} (${view.agent})`,
    what: text?.what ?? `${view.kind} ${view.subject}: the item is gone; the next check resolves this`,
    since: when(view.since),
    onWhom: text?.onWhom.join(", ") || "nobody assigned",
    level: view.level,
    state: view.state,
    acknowledged: view.acknowledgedBy ? `Acknowledged by ${view.acknowledgedBy} at ${when(view.acknowledgedAt)}` : "",
    fields: text?.fields ?? [],
    openPath: text?.openPath ?? "",
    pings: view.pings.map(pingLine),
    canAcknowledge: view.state === "open",
    canTakeOver,
  };
}

type Act = (
  ctx: HandlerContext,
  user: KnownUser,
  id: string,
) => Promise<{ note: string; took: boolean; status: number }>;

/** The form actions, each the same handler as the ping's button (and the API's ack), in the same words. */
const ACTS: Record<string, Act> = {
  ack: async (ctx, user, id) => {
    const result = await acknowledge(ctx, user, id);
    const took = result.kind === "acknowledged" || result.kind === "already";
    return { note: ackNoteText(result), took, status: statusOf(took, result.kind) };
  },
  "take-over": async (ctx, user, id) => {
    const result = await takeOver(ctx, user, id);
    const took = result.kind === "assigned" || result.kind === "already_reviewer";
    return { note: takeOverNoteText(result), took, status: statusOf(took, result.kind) };
  },
};

const statusOf = (took: boolean, kind: string) => (took ? 200 : kind === "not_found" ? 404 : 409);

/** The Escalations page: what waits on whom, its pings and where they went, with Acknowledge and Take over. */
export function registerEscalationRoutes(scope: FastifyInstance, ctx: HandlerContext): void {
  const shown = { title: "Escalations", section: "escalations" as const, path: "/escalations" };
  const draw = async (request: FastifyRequest, reply: FastifyReply, notes: Note[] = [], status = 200) =>
    sendPage(
      reply,
      request.consoleSession,
      "escalations",
      { ...shown, notes, status },
      {
        items: (await escalationDesk(ctx, request.consoleSession!.user)).map(escalationRow),
      },
    );

  scope.get("/escalations", async (request, reply) => draw(request, reply));

  for (const [name, act] of Object.entries(ACTS)) {
    scope.post(`/escalations/${name}`, async (request, reply) => {
      const session = request.consoleSession!;
      const { id } = formOf(request, session, EscalationForm);
      const { note, took, status } = await act(ctx, session.user, id);
      return draw(request, reply, [took ? ok(note) : refused(note)], status);
    });
  }
}
