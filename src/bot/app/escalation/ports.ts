import type { EscalationKind } from "../../../policy/escalation";
import type { CardPosters } from "../cards/ports";
import type { ItemFacts, Resolution } from "./item-facts";

/** The tokens of one ping's buttons. */
export interface PingTokens {
  ack: string;
  /** Approvals only. */
  takeOver?: string;
}

/**
 * How pings look, declared by the app and implemented by the chat surface (surfaces/chat/ping-card.ts): the
 * app decides what is sent, when and to whom; the surface says it. `C` is the surface's card, which the app
 * stores with each posted ping (as JSON) to settle it later.
 */
export interface PingRenderer<C> {
  /** The ping of one step of one escalation. */
  ping(
    kind: EscalationKind,
    facts: ItemFacts,
    step: { level: number; repeat: number; since: Date },
    tokens: PingTokens,
  ): C;
  /** A posted ping once its item resolved, with `footer` (from `resolution`) as its outcome. */
  settled(posted: C, footer: string): C;
  /** How the item ended, in words: the settled cards' footer and the escalation's stored resolution. */
  resolution(outcome: Resolution, now: Date): string;
}

/** What the monitor needs to ping: each platform's poster and the renderer of their cards. */
export interface PingDeps<C> {
  publishers: CardPosters<C>;
  render: PingRenderer<C>;
}
