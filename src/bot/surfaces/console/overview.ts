import type { FastifyInstance } from "fastify";
import type { HandlerContext } from "../../app/context";
import { listEscalations } from "../../app/escalation/escalations";
import { type AgentListItem, listAgents, listRuns } from "../../app/lists/operator-lists";
import { maintenanceSummary } from "../../app/maintenance/windows";
import type { KnownUser } from "../../app/records";
import { maintenanceLines } from "../chat/maintenance-flow";
import { TENANT_HOLD_WORDS, when } from "../chat/words";
import { itemsOf } from "./lists";
import { sendPage } from "./pages";
import type { AgentRow, OverviewPage } from "./views";

/** The hold column: who holds the agent, at what level, and why; "" while it runs. */
export function holdWords(agent: AgentListItem): string {
  if (agent.effective.by === "tenant") return TENANT_HOLD_WORDS;
  if (agent.state === "RUNNING") return "";
  return `${agent.holdLevel} hold by ${agent.setBy} since ${when(agent.setAt)}: ${agent.reason}`;
}

function agentRow(agent: AgentListItem): AgentRow {
  const { held } = agent;
  return {
    name: agent.name,
    state: agent.effective.state,
    hold: holdWords(agent),
    held: [
      { label: "occurrences", count: held.occurrences },
      { label: "inbound events", count: held.inboundEvents },
      { label: "outbound actions", count: held.outboxActions },
      ...(held.retrying ? [{ label: "retrying", count: held.retrying }] : []),
      { label: "needs review", count: held.needsReview },
    ],
  };
}

export async function overviewPage(ctx: HandlerContext, user: KnownUser): Promise<OverviewPage> {
  const agents = itemsOf(await listAgents(ctx, user, { limit: 500 }));
  const waiting = itemsOf(await listRuns(ctx, user, { state: "waiting", limit: 100 }));
  const escalating = await listEscalations(ctx, user, { states: ["open", "acknowledged"], limit: 100 });
  const maintenance = maintenanceLines(await maintenanceSummary(ctx));
  return {
    agents: agents.map(agentRow),
    waiting: waiting.map((r) => ({
      id: r.id,
      agent: r.agent,
      operation: r.operation ?? "run",
      reviewers: r.reviewers.join(", "),
      deadline: when(r.deadline),
    })),
    needsReview: agents.reduce((sum, a) => sum + a.held.needsReview, 0),
    // What is escalating to this person (the same list as /escalations in chat and GET /v1/escalations).
    escalations: escalating.items.map((e) => ({
      id: e.id,
      what: `${e.kind} ${e.subject} (${e.agent})`,
      level: e.level,
      since: when(e.since),
      notified: e.notified.join(", ") || "nobody",
      acknowledged: e.acknowledgedBy ? `acknowledged by ${e.acknowledgedBy} at ${when(e.acknowledgedAt)}` : "",
    })),
    maintenance,
  };
}

export function registerOverviewRoute(scope: FastifyInstance, ctx: HandlerContext): void {
  scope.get("/", async (request, reply) => {
    const session = request.consoleSession!;
    const page = await overviewPage(ctx, session.user);
    return sendPage(reply, session, "overview", { title: "Overview", section: "overview", path: "/" }, page);
  });
}
