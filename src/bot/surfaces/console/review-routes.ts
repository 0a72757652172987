import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { attemptResultOf } from "../../../policy/delivery-class";
import { runName } from "../../../policy/ids";
import type { HandlerContext } from "../../app/context";
import { reconcileOutbox } from "../../app/outbox/reconcile-outbox";
import { type ReviewQueueItem, reviewQueue } from "../../app/outbox/review-queue";
import { RECONCILE_REFUSALS, RESOLUTION_WORDS, when } from "../chat/words";
import { packetParts } from "./approval-routes";
import { formOf } from "./form";
import { ok, refused, sendPage } from "./pages";
import type { Note, ReviewItem } from "./views";

const ReconcileForm = z.object({
  key: z.string().min(1).max(300),
  resolution: z.enum(["delivered", "retry", "abandon"]),
  note: z.string().trim().min(1, "a note is required").max(1000),
});

const RESOLUTIONS = ["delivered", "retry", "abandon"] as const;

/** One NEEDS_REVIEW item's three facts: what was intended, what is known, what each resolution does next. */
function reviewItem({ item, agent, approved, delivery: view, canReconcile, run }: ReviewQueueItem): ReviewItem {
  return {
    key: item.id,
    agent,
    // The approved packet, as the Approvals page and the API show it: to those who see packets only.
    packet: run ? packetParts(run) : null,
    intended: {
      digest: item.digest ?? "none (not an approved packet)",
      run: item.runId ? runName(item.tenantId, item.runId) : "none",
      approvedBy: approved
        ? `${approved.by ?? "the scheduler"} at ${when(approved.at)}`
        : "no approval (scheduled or inbound work)",
    },
    known: {
      lastAttemptAt: when(view.lastAttemptAt),
      lastResult: view.lastResult ? attemptResultOf(view.lastResult) : "none recorded",
      destination: item.destination,
      actionKey: item.id,
      attempts: item.attempts,
    },
    next: RESOLUTIONS.map((resolution) => ({ resolution, ...RESOLUTION_WORDS[resolution] })),
    canReconcile,
  };
}

export function registerReviewRoutes(scope: FastifyInstance, ctx: HandlerContext): void {
  async function show(request: FastifyRequest, reply: FastifyReply, notes: Note[] = [], status = 200) {
    const session = request.consoleSession!;
    const page = { items: (await reviewQueue(ctx, session.user)).map(reviewItem) };
    const shown = { title: "Needs review", section: "review" as const, path: "/review", notes, status };
    return sendPage(reply, session, "review", shown, page);
  }

  scope.get("/review", async (request, reply) => show(request, reply));

  scope.post("/review/reconcile", async (request, reply) => {
    const session = request.consoleSession!;
    const form = formOf(request, session, ReconcileForm);
    const result = await reconcileOutbox(ctx, { user: session.user, ...form });
    if (result.kind === "reconciled") {
      const words = RESOLUTION_WORDS[form.resolution];
      return show(request, reply, [ok(`${words.label}: ${form.key} is now ${result.item.state}.`)]);
    }
    const status = result.kind === "not_found" ? 404 : result.kind === "forbidden" ? 403 : 409;
    return show(request, reply, [refused(`Nothing changed: ${RECONCILE_REFUSALS[result.kind]}.`)], status);
  });
}
