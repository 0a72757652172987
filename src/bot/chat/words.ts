import type { HeldCounts } from "../../store/held-work";
import type { WaitingRun } from "../../store/runs";
import type { PauseResult } from "../handlers/pause";
import type { AgentStatus } from "../handlers/status";

/** Times are shown in UTC with the zone named, so every reader on every platform sees the same thing. */
export const when = (iso: string | Date | null): string =>
  iso ? `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC` : "never";

const holdWords = (level: string) => (level === "admin" ? "an admin hold" : `a ${level} hold`);

export function pauseText(result: PauseResult, actorName: string): string {
  const c = result.control;
  const until = c.until ? ` Automatic resume at ${when(c.until)}.` : "";
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
    `Items needing review: ${held.needsReview}`,
  ];
}

export function statusText(status: AgentStatus): string {
  const c = status.control;
  const lines = [
    c.state === "RUNNING"
      ? `${c.agent} is RUNNING.`
      : `${c.agent} is ${c.state}: ${holdWords(c.holdLevel)} set by ${c.setBy} since ${when(c.setAt)}. Reason: ${c.reason}.`,
    ...(c.until ? [`Automatic resume at ${when(c.until)}.`] : []),
    ...(status.tenantPaused ? ["The whole tenant is paused too; an admin must resume it."] : []),
    ...heldLines(status.held),
  ];
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
