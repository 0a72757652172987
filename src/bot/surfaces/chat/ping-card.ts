import type { EscalationKind } from "../../../policy/escalation";
import type { ItemFacts, Resolution } from "../../app/escalation/item-facts";
import type { PingRenderer, PingTokens } from "../../app/escalation/ports";
import { shortDigest } from "./approval-card";
import type { Card } from "./types";
import { when } from "./words";

/** What a ping says about its item: what waits, on whom, and where to open it (a path under the public URL). */
export interface PingText {
  what: string;
  onWhom: string[];
  fields: Array<{ label: string; value: string }>;
  openPath: string;
}

const TITLES: Record<EscalationKind, string> = {
  approval: "an approval waits",
  paused: "a paused agent has work waiting",
  review: "a delivery needs review",
  delivery: "an action is not delivered",
};

/** The item's facts in words. Agent-supplied values (operations, reasons, keys) stay data: every adapter escapes them. */
export function pingText(facts: ItemFacts): PingText {
  switch (facts.kind) {
    case "approval":
      return {
        what: `Approval of ${facts.operation} (run ${facts.run}, version ${facts.version})`,
        onWhom: facts.reviewers,
        fields: [
          { label: "Run", value: facts.run },
          { label: "Operation", value: facts.operation },
          { label: "Digest", value: shortDigest(facts.digest) },
        ],
        openPath: `/approvals#${encodeURIComponent(facts.run)}`, // the console's approval, with its packet and buttons
      };
    case "paused":
      return {
        what: `Agent ${facts.agent} is paused${facts.reason ? ` (${facts.reason})` : ""}`,
        onWhom: facts.principal,
        fields: [
          { label: "Waiting runs", value: String(facts.waitingRuns) },
          { label: "Held triggers", value: String(facts.held.occurrences) },
          { label: "Held events", value: String(facts.held.inboundEvents) },
          { label: "Held actions", value: String(facts.held.outboxActions) },
          { label: "Needs review", value: String(facts.held.needsReview) },
        ],
        openPath: `/agents/${encodeURIComponent(facts.agent)}`, // the console's agent page: its hold and held work
      };
    case "review":
    case "delivery":
      return outboxText(facts);
  }
}

function outboxText(facts: Extract<ItemFacts, { kind: "review" | "delivery" }>): PingText {
  const { outbox } = facts;
  const known = `${outbox.lastAttemptAt ? when(outbox.lastAttemptAt) : "never attempted"}: ${outbox.lastResult ?? "no result"}`;
  const review = facts.kind === "review";
  return {
    what: review ? `Delivery ${outbox.id} needs review` : `Delivery ${outbox.id} is not delivered (${outbox.state})`,
    onWhom: facts.principal,
    fields: [
      // Intended: what was approved; known: what the last attempt saw; next: what each resolution does.
      {
        label: "Intended",
        value: `${outbox.digest ? shortDigest(outbox.digest) : "no digest"}, run ${facts.run ?? "none"}, approved by ${facts.approver ?? "none"}`,
      },
      { label: "Known", value: `${known}; to ${outbox.destination}; key ${outbox.id}` },
      {
        label: "Next",
        value: review
          ? "delivered: mark done, nothing sent; retry: send again with the same key; abandon: never send"
          : `attempt ${outbox.attempts + 1} at ${when(outbox.nextAttemptAt)}`,
      },
    ],
    openPath: review ? "/review" : `/agents/${encodeURIComponent(facts.agent)}`, // the console: three facts, or held work
  };
}

/**
 * The ping: what waits, since when, on whom, the level; Acknowledge, Take over (approvals) and Open. Our
 * own words are the title and labels; item text (operations, reasons, keys) is in lines and fields, which
 * every adapter escapes.
 */
export function pingCard(
  kind: EscalationKind,
  text: PingText,
  step: { level: number; repeat: number; since: Date },
  tokens: PingTokens,
  publicUrl: string,
): Card {
  return {
    title: `Escalation level ${step.level}: ${TITLES[kind]}`,
    lines: [text.what, `Waiting since ${when(step.since)} on ${text.onWhom.join(", ") || "nobody assigned"}`],
    fields: [
      ...text.fields,
      { label: "Level", value: step.repeat ? `${step.level} (reminder ${step.repeat})` : String(step.level) },
    ],
    buttons: [
      { label: "Acknowledge", action: "escalation.ack", token: tokens.ack, style: "primary" },
      ...(tokens.takeOver
        ? [
            {
              label: "Take over",
              action: "escalation.takeover" as const,
              token: tokens.takeOver,
              style: "default" as const,
            },
          ]
        : []),
    ],
    links: [{ label: "Open", url: `${publicUrl.replace(/\/+$/, "")}${text.openPath}` }],
  };
}

/** The card once its item resolved: the same facts, the outcome as footer, no buttons or links. */
export const settledPingCard = (posted: Card, footer: string): Card => ({
  ...posted,
  buttons: [],
  links: [],
  footer,
});

/** How the item ended, e.g. "Resolved: approved by rita at 2026-12-03 10:00 UTC". */
export function resolutionText(outcome: Resolution, now: Date): string {
  switch (outcome.kind) {
    case "run_gone":
      return `Resolved: the run no longer exists (${when(now)})`;
    case "superseded":
      return `Resolved: superseded by version ${outcome.version} at ${when(now)}`;
    case "decided":
      return `Resolved: ${outcome.state}${outcome.by ? ` by ${outcome.by}` : ""} at ${when(outcome.at ?? now)}`;
    case "paused_over":
      return `Resolved: the agent runs again or has nothing waiting (${when(now)})`;
    case "delivery_gone":
      return `Resolved: the delivery no longer exists (${when(now)})`;
    case "delivery":
      return `Resolved: ${outcome.state.toLowerCase().replace("_", " ")} at ${when(now)}`;
  }
}

/** The chat surface's pings, with Open links under `publicUrl`. */
export const chatPings = (publicUrl: string): PingRenderer<Card> => ({
  ping: (kind, facts, step, tokens) => pingCard(kind, pingText(facts), step, tokens, publicUrl),
  settled: settledPingCard,
  resolution: resolutionText,
});
