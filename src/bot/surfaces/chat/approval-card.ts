import { runName } from "../../../policy/ids";
import type { RunRecord } from "../../app/records";
import type { Card } from "./types";
import { when } from "./words";

/** The two buttons of one packet version; each token names a ChatButton bound to (run, version, digest). */
export interface ApprovalTokens {
  approve: string;
  deny: string;
}

const MAX_SUMMARY_LINES = 6;
const MAX_VALUE_CHARS = 120;

/** "sha256:3f2a…" shortened to what a person can compare at a glance; the button carries the full digest. */
export const shortDigest = (digest: string) => `${digest.slice(0, "sha256:".length + 12)}…`;

/** "2h 5m left", "3d 4h left", "40s left", or "past" — time left, to the two largest units. */
export function timeLeft(deadline: Date, now: Date): string {
  let seconds = Math.floor((deadline.getTime() - now.getTime()) / 1000);
  if (seconds <= 0) return "past";
  const units: Array<[string, number]> = [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ];
  const parts: string[] = [];
  for (const [name, size] of units) {
    if (seconds >= size && parts.length < 2) {
      parts.push(`${Math.floor(seconds / size)}${name}`);
      seconds %= size;
    } else if (parts.length) break;
  }
  return `${parts.join(" ")} left`;
}

const compact = (value: unknown) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
};

/**
 * A packet is any JSON. Its top-level fields are shown one per line (evidence apart), each shortened; the
 * reviewer decides on the digest shown, so a long packet is summarised, never silently different.
 */
export function packetSummary(packetJson: string): { summary: string[]; evidence: string[] } {
  const packet = JSON.parse(packetJson) as unknown;
  if (packet === null || typeof packet !== "object" || Array.isArray(packet)) {
    return { summary: [compact(packet)], evidence: [] };
  }
  const { evidence, ...rest } = packet as Record<string, unknown>;
  const entries = Object.entries(rest);
  const summary = entries.slice(0, MAX_SUMMARY_LINES).map(([key, value]) => `${key}: ${compact(value)}`);
  if (entries.length > MAX_SUMMARY_LINES) summary.push(`… and ${entries.length - MAX_SUMMARY_LINES} more fields`);
  const items = evidence === undefined ? [] : Array.isArray(evidence) ? evidence : [evidence];
  return { summary, evidence: items.slice(0, MAX_SUMMARY_LINES).map(compact) };
}

/** What a card is drawn from: the run, with the packet of the card's own version. */
export type CardRun = Pick<
  RunRecord,
  "id" | "tenantId" | "operation" | "destination" | "version" | "digest" | "packet" | "deadline"
>;

/**
 * The approval card of one packet version (issue 5): what, where, which version, until when. Without
 * tokens it is the settled card: no buttons, the deadline without a countdown, and `footer` saying why.
 */
export function approvalCard(
  run: CardRun,
  agentName: string,
  now: Date,
  tokens: ApprovalTokens | null,
  footer?: string,
): Card {
  const { summary, evidence } = packetSummary(run.packet);
  const left = run.deadline && tokens ? ` (${timeLeft(run.deadline, now)})` : "";
  return {
    title: tokens ? `Approve ${run.operation} for ${agentName}?` : `${run.operation} for ${agentName}`,
    lines: [...summary, ...(evidence.length ? [`Evidence: ${evidence.join("; ")}`] : [])],
    fields: [
      { label: "Run", value: runName(run.tenantId, run.id) },
      { label: "Operation", value: run.operation },
      { label: "Destination", value: run.destination },
      { label: "Version", value: String(run.version) },
      { label: "Digest", value: shortDigest(run.digest) },
      { label: "Deadline", value: run.deadline ? `${when(run.deadline)}${left}` : "none" },
    ],
    buttons: tokens
      ? [
          { label: "Approve", action: "run.approve", token: tokens.approve, style: "primary" },
          { label: "Deny", action: "run.deny", token: tokens.deny, style: "danger" },
        ]
      : [],
    ...(footer ? { footer } : {}),
  };
}

export type SettledShows = "approved" | "denied" | "expired" | "superseded";

/** What a card of `cardVersion` should show now, or null while it is still the open request. */
export function cardOutcome(
  run: Pick<RunRecord, "state" | "version">,
  cardVersion: number,
  decidedVersion: number | null,
): SettledShows | null {
  if (run.state === "waiting") return cardVersion < run.version ? "superseded" : null;
  // A card older than the decided version was superseded before the decision (an edit that was missed).
  return decidedVersion !== null && cardVersion < decidedVersion ? "superseded" : run.state;
}

/** The footer of a settled card. `newest` is the version that superseded it. */
export function outcomeFooter(
  shows: SettledShows,
  newest: number,
  decision: { by: string | null; at: Date } | null,
): string {
  const at = decision ? when(decision.at) : "an unknown time";
  switch (shows) {
    case "superseded":
      return `Superseded by version ${newest}: the packet changed, and a new card asks about it.`;
    case "expired":
      return `Expired at ${at}: no decision before the deadline.`;
    case "approved":
      return `Approved by ${decision?.by ?? "someone"} at ${at}.`;
    case "denied":
      return `Denied by ${decision?.by ?? "someone"} at ${at}.`;
  }
}
