import type { FastifyInstance } from "fastify";
import type { AgentRow, OverviewPage } from "../../adapters/web/views";
import { listTenantAgents } from "../../store/chat-directory";
import type { KnownUser } from "../../store/directory";
import { TENANT_HOLD_WORDS, when } from "../chat/words";
import type { HandlerContext } from "../context";
import { pendingApprovals } from "../handlers/approvals";
import { type AgentStatus, agentStatus } from "../handlers/status";
import { sendPage } from "./pages";

/** The hold column: who holds the agent, at what level, and why; "" while it runs. */
export function holdWords(status: AgentStatus): string {
  const c = status.control;
  const t = status.tenantHold;
  if (c.effective.by === "tenant" && t) return `${TENANT_HOLD_WORDS} (${t.setBy}: ${t.reason})`;
  if (c.state === "RUNNING") return "";
  return `${c.holdLevel} hold by ${c.setBy} since ${when(c.setAt)}: ${c.reason}`;
}

function agentRow(status: AgentStatus): AgentRow {
  const { held } = status;
  return {
    name: status.control.agent,
    state: status.control.effective.state,
    hold: holdWords(status),
    held: [
      { label: "occurrences", count: held.occurrences },
      { label: "inbound events", count: held.inboundEvents },
      { label: "outbound actions", count: held.outboxActions },
      { label: "needs review", count: held.needsReview },
    ],
  };
}

export async function overviewPage(ctx: HandlerContext, user: KnownUser): Promise<OverviewPage> {
  const agents = await listTenantAgents(ctx.store.db, user.tenantId);
  const statuses = await Promise.all(agents.map((agent) => agentStatus(ctx, agent)));
  const waiting = await pendingApprovals(ctx, user);
  return {
    agents: statuses.map(agentRow),
    waiting: waiting.map((r) => ({
      id: r.id,
      agent: r.agentId.slice(r.agentId.indexOf(":") + 1),
      operation: r.operation ?? "run",
      deadline: when(r.deadline),
    })),
    needsReview: statuses.reduce((sum, s) => sum + s.held.needsReview, 0),
    // ACTIVE ESCALATIONS SLOT: filled from the escalation ledger (issue 15) when it lands on main.
    escalations: null,
  };
}

export function registerOverviewRoute(scope: FastifyInstance, ctx: HandlerContext): void {
  scope.get("/", async (request, reply) => {
    const session = request.consoleSession!;
    const page = await overviewPage(ctx, session.user);
    return sendPage(reply, session, "overview", { title: "Overview", section: "overview", path: "/" }, page);
  });
}
