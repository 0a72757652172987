import { durationWords } from "../../../policy/duration";
import type { HandlerContext } from "../../app/context";
import { agentStatus } from "../../app/control/status";
import { agentTriggers, type TriggerView } from "../../app/held/triggers";
import { type AuditEntry, listAudit } from "../../app/lists/operator-lists";
import type { KnownAgent, KnownUser } from "../../app/records";
import type { Card } from "../chat/types";
import { heldLines, statusText, whenToSecond } from "../chat/words";
import { itemsOf } from "./lists";
import type { AgentPage, TriggerRow } from "./views";
import { webConversation } from "./web-chat";

/** The latest audited acts shown on the page, newest first. */
const AUDIT_SHOWN = 50;

/** The part of an audited act's detail a person reads: the reason, the note, or the packet version. */
const auditDetail = (detail: AuditEntry["detail"]): string => {
  if (detail.reason) return String(detail.reason);
  if (detail.note) return String(detail.note);
  return detail.version !== undefined && detail.version !== null
    ? `run ${detail.runId}, version ${detail.version}`
    : "";
};

const cadence = (t: TriggerView) =>
  t.every !== null ? `every ${durationWords(t.every)}` : `cron ${t.cron}${t.tz ? ` (${t.tz})` : ""}`;

/** An agent's page: its state in chat's words, the held work, its triggers, the chat box. */
export async function agentPage(
  ctx: HandlerContext,
  user: KnownUser,
  agent: KnownAgent,
  card: Card | null = null,
): Promise<AgentPage> {
  const [status, triggers, chat, audit] = await Promise.all([
    agentStatus(ctx, agent),
    agentTriggers(ctx, agent),
    webConversation(ctx, user, agent),
    listAudit(ctx, user, { agent: agent.name, limit: AUDIT_SHOWN }).then(itemsOf),
  ]);
  const byTrigger = status.held.occurrencesByTrigger;
  // Right after a resume its release is still marking the rows it let go: they are on their way, not held.
  const badge = status.control.effective.state === "RUNNING" ? "releasing" : "held";
  const rows: TriggerRow[] = triggers.map((t) => {
    const held = byTrigger[t.key] ?? 0;
    return {
      key: t.key,
      cadence: cadence(t),
      destination: t.destination,
      misfire: t.misfire,
      nextDue: whenToSecond(t.nextDueAt),
      lastDue: whenToSecond(t.lastDueAt),
      held: held ? `${badge} ×${held}` : "",
    };
  });
  const held = heldLines(status.held);
  return {
    agent: agent.name,
    paused: status.control.effective.state !== "RUNNING",
    statusLines: statusText(status)
      .split("\n")
      .filter((line) => !held.includes(line)),
    heldLines: held,
    triggers: rows,
    card,
    chat,
    audit: audit.map((a) => ({
      at: whenToSecond(a.at),
      action: a.action,
      actor: a.actor ?? "the scheduler",
      outcome: a.outcome,
      reason: auditDetail(a.detail),
    })),
  };
}
