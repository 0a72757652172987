import type { EscalationKind } from "../../../policy/escalation";
import type { Card } from "../../surfaces/chat/types";
import { when } from "../../surfaces/chat/words";
import type { ItemFacts } from "./item-facts";

export interface PingTokens {
  ack: string;
  /** Approvals only. */
  takeOver?: string;
}

const TITLES: Record<EscalationKind, string> = {
  approval: "an approval waits",
  paused: "a paused agent has work waiting",
  review: "a delivery needs review",
  delivery: "an action is not delivered",
};

/**
 * The ping: what waits, since when, on whom, the level; Acknowledge, Take over (approvals) and Open. Our
 * own words are the title and labels; item text (operations, reasons, keys) is in lines and fields, which
 * every adapter escapes.
 */
export function pingCard(
  kind: EscalationKind,
  facts: ItemFacts,
  step: { level: number; repeat: number; since: Date },
  tokens: PingTokens,
  publicUrl: string,
): Card {
  return {
    title: `Escalation level ${step.level}: ${TITLES[kind]}`,
    lines: [facts.what, `Waiting since ${when(step.since)} on ${facts.onWhom.join(", ") || "nobody assigned"}`],
    fields: [
      ...facts.fields,
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
    links: [{ label: "Open", url: `${publicUrl.replace(/\/+$/, "")}${facts.openPath}` }],
  };
}

/** The card once its item resolved: the same facts, the outcome as footer, no buttons or links. */
export const settledPingCard = (posted: Card, footer: string): Card => ({
  ...posted,
  buttons: [],
  links: [],
  footer,
});
