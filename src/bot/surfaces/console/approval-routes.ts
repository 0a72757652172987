import crypto from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { runName } from "../../../policy/ids";
import { decideRun } from "../../app/approvals/decide-run";
import { type RunAsRead, readRun } from "../../app/approvals/read-run";
import { storedRunId } from "../../app/approvals/run-ids";
import type { ApprovalRunView } from "../../app/approvals/run-view";
import type { HandlerContext } from "../../app/context";
import { outboundHeld } from "../../app/control/outbound-held";
import { listRuns } from "../../app/lists/operator-lists";
import type { KnownUser } from "../../app/records";
import { outcomeFooter, timeLeft } from "../chat/approval-card";
import { decisionNoteText } from "../chat/decision-words";
import { when } from "../chat/words";
import { formOf } from "./form";
import { itemsOf } from "./lists";
import { ok, refused, sendPage } from "./pages";
import type { ApprovalDetail, Note } from "./views";

/** How many settled runs the page shows, newest first. */
const SETTLED_SHOWN = 20;

const DecideForm = z.object({
  run: z.string().min(1).max(300),
  action: z.enum(["approve", "deny"]),
  version: z.coerce.number().int().min(1).max(1_000_000),
  digest: z.string().min(1).max(200),
  eventId: z.string().regex(/^web:[\w-]{8,64}$/, "not a console decision"),
});

/**
 * The packet pretty-printed, its `evidence` shown apart; both null for a reader who does not see packets (the
 * same rule as `GET /v1/runs/:id`, in the same use case).
 */
export function packetParts(read: RunAsRead): { packet: string | null; evidence: string | null } {
  if (!("packet" in read)) return { packet: null, evidence: null };
  const packet = read.packet;
  if (packet && typeof packet === "object" && !Array.isArray(packet) && "evidence" in packet) {
    const { evidence, ...rest } = packet as Record<string, unknown>;
    return { packet: JSON.stringify(rest, null, 2), evidence: JSON.stringify(evidence, null, 2) };
  }
  return { packet: JSON.stringify(packet, null, 2), evidence: null };
}

/**
 * The decision's event id, the same on every drawing of the page for this session and packet version (live
 * updates redraw it): pressing Approve twice is then one decision and a `duplicate`.
 */
const decisionEventId = (csrf: string, runId: string, version: number) =>
  `web:${crypto.createHash("sha256").update(`${csrf}|${runId}|${version}`).digest("base64url").slice(0, 32)}`;

function approvalDetail(ctx: HandlerContext, user: KnownUser, csrf: string, read: RunAsRead): ApprovalDetail {
  const { run } = read;
  const view = read.view as ApprovalRunView;
  const now = ctx.now();
  const open = run.state === "waiting";
  const decision = view.decision ? { by: view.decision.by, at: new Date(view.decision.at) } : null;
  const shows = run.state === "approved" || run.state === "denied" || run.state === "expired" ? run.state : null;
  return {
    id: runName(run.tenantId, run.id),
    agent: view.agent,
    operation: run.operation,
    destination: run.destination,
    state: run.state,
    // A settled run shows the version it was decided on; the run's own counter has moved past it.
    version: shows && view.decision ? view.decision.version : run.version,
    digest: run.digest,
    deadline: when(run.deadline),
    timeLeft: open && run.deadline ? timeLeft(run.deadline, now) : "",
    ...packetParts(read),
    reviewers: view.reviewers.join(", "),
    decide:
      open && run.reviewers.includes(user.id)
        ? { version: run.version, digest: run.digest, eventId: decisionEventId(csrf, run.id, run.version) }
        : null,
    footer: shows ? outcomeFooter(shows, run.version, decision) : "",
  };
}

export function registerApprovalRoutes(scope: FastifyInstance, ctx: HandlerContext): void {
  /** Every waiting approval of the tenant (buttons only for its assigned reviewers), then the latest settled. */
  async function show(request: FastifyRequest, reply: FastifyReply, notes: Note[] = []) {
    const session = request.consoleSession!;
    const user = session.user;
    const [waiting, recent] = await Promise.all([
      listRuns(ctx, user, { state: "waiting", limit: 100 }).then(itemsOf),
      listRuns(ctx, user, { limit: 100 }).then(itemsOf),
    ]);
    const settled = recent.filter((r) => r.kind === "approval" && r.state !== "waiting").slice(0, SETTLED_SHOWN);
    const detail = async (id: string) => {
      const read = await readRun(ctx, { kind: "user", user }, id);
      return read?.view.kind === "approval" ? [approvalDetail(ctx, user, session.csrfToken, read)] : [];
    };
    const page = {
      waiting: (await Promise.all(waiting.filter((r) => r.kind === "approval").map((r) => detail(r.id)))).flat(),
      settled: (await Promise.all(settled.map((r) => detail(r.id)))).flat(),
    };
    const shown = { title: "Approvals", section: "approvals" as const, path: "/approvals", notes };
    return sendPage(reply, session, "approvals", shown, page);
  }

  scope.get("/approvals", async (request, reply) => show(request, reply));

  /** The same decideRun as chat and the API, bound to the version and full digest the page showed. */
  scope.post("/approvals/decide", async (request, reply) => {
    const session = request.consoleSession!;
    const form = formOf(request, session, DecideForm);
    const runId = await storedRunId(ctx, session.user.tenantId, form.run);
    const outcome = await decideRun(ctx, {
      runId,
      eventId: form.eventId,
      action: form.action,
      version: form.version,
      digest: form.digest,
      actor: session.user,
    });
    if (outcome.result === "not_found") return show(request, reply, [refused(decisionNoteText({ outcome }))]);
    const held =
      outcome.result === "approved" ? await outboundHeld(ctx, session.user.tenantId, outcome.run.agent) : null;
    const note = decisionNoteText({ outcome, cardVersion: form.version, held });
    const took = outcome.result === "approved" || outcome.result === "denied";
    return show(request, reply, [took ? ok(note) : refused(note)]);
  });
}
