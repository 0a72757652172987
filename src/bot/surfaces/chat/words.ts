import type { ReleaseForecast } from "../../../policy/misfire";
import type { ControlView } from "../../app/control/control-view";
import type { PauseResult } from "../../app/control/pause";
import type { AgentStatus } from "../../app/control/status";
import type { AckResult, EscalationView, TakeOverResult } from "../../app/escalation/escalations";
import type { HeldCounts, WaitingRun } from "../../app/records";

/** Times are shown in UTC with the zone named, so every reader on every platform sees the same thing. */
export const when = (iso: string | Date | null): string =>
  iso ? `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC` : "never";

const holdWords = (level: string) => (level === "admin" ? "an admin hold" : `a ${level} hold`);

/** Said wherever a reply states the agent's state while the tenant-wide hold is what holds it. */
export const TENANT_HOLD_WORDS = "paused by the tenant-wide hold";

/** A sentence for a reply whose agent the tenant-wide hold holds, or "" when it does not. */
export const tenantHoldNote = (c: ControlView): string =>
  c.effective.by === "tenant" ? ` ${c.agent} stays ${TENANT_HOLD_WORDS} until an admin resumes the tenant.` : "";

export function pauseText(result: PauseResult, actorName: string): string {
  const c = result.control;
  const until = c.until ? ` Automatic resume at ${when(c.until)}.` : "";
  return pauseWords(result, actorName, until) + tenantHoldNote(c);
}

function pauseWords(result: PauseResult, actorName: string, until: string): string {
  const c = result.control;
  switch (result.kind) {
    case "paused":
      return `${c.agent} is paused by ${actorName} (${holdWords(c.holdLevel)}): ${c.reason}.${until} Conversations keep working; outbound work is held.`;
    case "raised":
      return `${c.agent} was already paused; ${actorName} raised it to ${holdWords(c.holdLevel)}: ${c.reason}.${until}`;
    case "kept":
      return `${c.agent} is already paused by ${c.setBy} (${holdWords(c.holdLevel)}: ${c.reason}); that hold stays. Your request is in the audit log.`;
  }
}

export function heldLines(held: HeldCounts): string[] {
  const perTrigger = Object.entries(held.occurrencesByTrigger)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([key, count]) => `${key} ×${count}`);
  return [
    `Held trigger occurrences: ${held.occurrences}${perTrigger.length ? ` (${perTrigger.join(", ")})` : ""}`,
    `Held inbound events: ${held.inboundEvents}`,
    `Held outbound actions: ${held.outboxActions}`,
    ...(held.retrying ? [`Outbound actions retrying after a failed attempt: ${held.retrying}`] : []),
    `Items needing review: ${held.needsReview}`,
  ];
}

/** The first lines of /status: the effective state first, then the agent's own record when it differs. */
function stateLines(status: AgentStatus): string[] {
  const c = status.control;
  const own = `${holdWords(c.holdLevel)} set by ${c.setBy} since ${when(c.setAt)}. Reason: ${c.reason}.`;
  const ownUntil = c.until ? [`Automatic resume at ${when(c.until)}.`] : [];
  const t = status.tenantHold;
  if (c.effective.by === "tenant" && t) {
    return [
      `${c.agent} is ${c.effective.state}: ${TENANT_HOLD_WORDS}, set by ${t.setBy} since ${when(t.setAt)}. Reason: ${t.reason}.`,
      ...(t.until ? [`The tenant resumes automatically at ${when(t.until)}.`] : []),
      c.state === "RUNNING" ? `Its own record is RUNNING.` : `Its own record is ${c.state} too: ${own}`,
      ...ownUntil,
      "An admin must resume the tenant.",
    ];
  }
  if (c.state === "RUNNING") return [`${c.agent} is RUNNING.`];
  return [`${c.agent} is ${c.state}: ${own}`, ...ownUntil];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What a resume will send: the trigger deliveries its misfire policies make of the held occurrences, and the
 * held inbound events and outbound actions, each once; and the occurrences it skips.
 */
export function forecastLine(f: ReleaseForecast, held: Pick<HeldCounts, "inboundEvents" | "outboxActions">): string {
  const total = f.send + held.inboundEvents + held.outboxActions;
  const triggers = `${plural(f.send, "trigger delivery", "trigger deliveries")} (${f.coalesced} coalesced)`;
  const parts = [triggers, plural(held.inboundEvents, "inbound event", "inbound events")];
  parts.push(plural(held.outboxActions, "outbound action", "outbound actions"));
  return `On resume: will send ${total}: ${parts.join(", ")}; skip ${f.skip}`;
}

/** Everything a release let go, by kind (the card after Confirm and the release log say the same). */
export const releasedWords = (c: { occurrences: number; events: number; actions: number }): string =>
  `${plural(c.occurrences, "trigger occurrence", "trigger occurrences")}, ${plural(c.events, "inbound event", "inbound events")}, ${plural(c.actions, "outbound action", "outbound actions")}`;

export function statusText(status: AgentStatus): string {
  const lines = [...stateLines(status), ...heldLines(status.held)];
  const { approval, undelivered } = status.oldest;
  if (approval)
    lines.push(`Oldest pending approval: ${approval.operation ?? approval.runId} since ${when(approval.since)}`);
  if (undelivered)
    lines.push(
      `Oldest undelivered action: ${undelivered.destination} (${undelivered.state}) since ${when(undelivered.since)}`,
    );
  return lines.join("\n");
}

export function approvalsText(runs: WaitingRun[]): string {
  if (runs.length === 0) return "Nothing waits for your approval.";
  const lines = runs.map(
    (r) =>
      `• ${r.operation ?? "run"} (${r.id}, v${r.version}) for ${r.agentId.split(":").at(-1)}, waiting since ${when(r.createdAt)}${r.deadline ? `, deadline ${when(r.deadline)}` : ""}`,
  );
  return [`${runs.length} waiting for your decision:`, ...lines].join("\n");
}

/** `/console`: the one-time sign-in link, said only to the caller. */
export const consoleLinkText = (url: string): string =>
  `Your console sign-in link (valid 10 minutes, works once): ${url}`;

/** To the second, for schedules that fire every few seconds (the console's trigger table). */
export const whenToSecond = (iso: string | Date | null): string =>
  iso ? `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC` : "never";

/** What each reconcile resolution does (the console's "Next" fact), in one place. */
export const RESOLUTION_WORDS = {
  delivered: {
    label: "Mark delivered",
    words: "you checked the destination and the effect took place: it is marked ACKNOWLEDGED and never sent again",
  },
  retry: {
    label: "Send again",
    words:
      "planned afresh with the same action key as Idempotency-Key and a new retry budget: a receiver that keeps keys applies it at most once",
  },
  abandon: {
    label: "Abandon",
    words: "nothing is sent again: it is marked ABANDONED, and the run shows the effect as given up",
  },
} as const;

/** Why a reconcile changed nothing (the API and the console say the same). */
export const RECONCILE_REFUSALS = {
  not_found: "no such outbox item",
  forbidden: "only the agent's principal or an admin can reconcile its effects",
  not_needs_review: "the item does not need review",
} as const;
export function escalationsText(items: EscalationView[]): string {
  if (items.length === 0) return "Nothing is escalating to you.";
  const lines = items.map(
    (e) =>
      `• ${e.kind} ${e.subject} (${e.agent}): level ${e.level}, waiting since ${when(e.since)}${e.acknowledgedBy ? `, acknowledged by ${e.acknowledgedBy}` : ""} [${e.id}]`,
  );
  return [`${items.length} escalating:`, ...lines].join("\n");
}

export function ackNoteText(result: AckResult): string {
  switch (result.kind) {
    case "acknowledged":
      return `Acknowledged at level ${result.escalation.level}: no more reminders at this level.`;
    case "already":
      return `Already acknowledged by ${result.escalation.acknowledgedBy} at ${when(result.escalation.acknowledgedAt)}.`;
    case "resolved":
      return "This escalation is already resolved.";
    case "not_found":
      return "This escalation is unknown to you.";
  }
}

export function takeOverNoteText(result: TakeOverResult): string {
  switch (result.kind) {
    case "assigned":
      return `You are now a reviewer of run ${result.runId} (version ${result.version}); its approval card is on its way.`;
    case "already_reviewer":
      return `You are already a reviewer of run ${result.runId}; decide on its approval card.`;
    case "not_waiting":
      return "The run no longer waits at this version: nothing to take over.";
    case "not_approval":
      return "Only an approval can be taken over.";
    case "not_found":
      return "This escalation is unknown to you.";
  }
}
