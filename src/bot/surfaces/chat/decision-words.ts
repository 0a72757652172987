import type { RejectReason } from "../../../policy/approval";
import type { DecisionOutcome } from "../../app/approvals/decide-run";
import type { NoteRun } from "../../app/chat/buttons";
import type { HoldReason } from "../../app/control/outbound-held";
import { when } from "./words";

/** A click on an approval card: the button's version, and what the decision said (the API's run view fits). */
export interface DecisionNote {
  outcome: DecisionOutcome<NoteRun> | { result: "unknown_button" };
  /** The packet version the clicked card was for. */
  cardVersion?: number;
  /** Why an approved action waits (the agent's pause, ...) instead of going out; null or absent: it goes out. */
  held?: HoldReason | null;
}

/** Where an approved action waits, and until when. */
const HELD_WORDS: Record<HoldReason, string> = {
  agent_paused: "The action is held while the agent is paused; it goes out when the agent resumes.",
  tenant_paused: "The action is held while the tenant-wide hold lasts; it goes out when an admin resumes the tenant.",
  maintenance: "The action is held while the maintenance window lasts; it goes out when the window ends.",
  unreadable: "The action is held until its agent's pause record can be read again.",
};

const REJECTED: Record<RejectReason, string> = {
  not_reviewer: "You are not an assigned reviewer of this run, so your click changes nothing.",
  other_tenant: "This run belongs to another team, so your click changes nothing.",
  deadline_passed: "The deadline of this run has passed; a decision is no longer accepted.",
};

/**
 * The one place an approval click's result becomes words (the sibling of `refusalText`). The code stays
 * visible at the end so people can quote it.
 */
export function decisionNoteText({ outcome, cardVersion, held }: DecisionNote): string {
  const run = "run" in outcome ? outcome.run : null;
  const decided = run?.decision
    ? `${run.decision.result} by ${run.decision.by ?? "the scheduler"} at ${when(run.decision.at)}`
    : "";
  const words = (() => {
    switch (outcome.result) {
      case "approved":
        return `Approved ${run!.operation} (version ${cardVersion ?? run!.version - 1}). ${held ? HELD_WORDS[held] : "The action is queued."}`;
      case "denied":
        return `Denied ${run!.operation} (version ${cardVersion ?? run!.version - 1}). Nothing will be sent.`;
      case "duplicate":
        return `Your decision was already recorded${decided ? `: ${decided}` : ""}. Nothing changed.`;
      case "conflict":
        return "This click's id was already used for a different decision; nothing changed.";
      case "stale":
        if (outcome.reason === "digest")
          return `This card's packet does not match version ${outcome.currentVersion} as stored; nothing changed. Decide on the newest card.`;
        return run!.state === "waiting"
          ? `This card is for version ${cardVersion ?? "?"}; the packet is now version ${outcome.currentVersion}. Decide on the newest card.`
          : `This card is for version ${cardVersion ?? "?"}; the run has since been ${decided || run!.state}. Nothing changed.`;
      case "invalid_state":
        return `This run is no longer waiting${decided ? ` (${decided})` : ` (${run!.state})`}; nothing changed.`;
      case "rejected":
        return REJECTED[outcome.reason ?? "not_reviewer"];
      case "expired":
        return `This run expired before a decision${decided ? ` (${decided})` : ""}; nothing changed.`;
      case "not_found":
      case "unknown_button":
        return "This button is no longer valid.";
    }
  })();
  return `${words} (${outcome.result})`;
}
