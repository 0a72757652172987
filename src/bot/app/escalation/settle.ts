import { listOpenPingCards, markPingCardResolved } from "../../../store/escalations/cards";
import { resolveEscalation } from "../../../store/escalations/ledger";
import type { StoredEscalation } from "../../../store/escalations/records";
import type { Card, CardPublisher, Platform } from "../../surfaces/chat/types";
import type { HandlerContext } from "../context";
import { resolutionText } from "./item-facts";
import { settledPingCard } from "./ping-card";

type Publishers = Partial<Record<Platform, CardPublisher>>;

/** Resolves an escalation whose item no longer waits, then edits its cards (only the resolving process does). */
export async function settleEscalation(ctx: HandlerContext, publishers: Publishers, escalation: StoredEscalation) {
  const { db } = ctx.store;
  const now = ctx.now();
  const footer = await resolutionText(db, escalation, now);
  if (await resolveEscalation(ctx.store, escalation, footer, now))
    await settlePingCards(ctx, publishers, escalation.id, footer);
}

/**
 * Every open card of a resolved escalation shows its outcome and loses its buttons, like approval cards. A
 * card is marked first (one editor wins); a failed edit marks it open again, so the next tick retries.
 */
export async function settlePingCards(
  ctx: HandlerContext,
  publishers: Publishers,
  escalationId: string,
  footer: string,
) {
  const { db } = ctx.store;
  for (const card of await listOpenPingCards(db, escalationId)) {
    const publisher = publishers[card.platform as Platform];
    if (!publisher || !(await markPingCardResolved(db, card.id, true))) continue;
    try {
      await publisher.edit(
        { channelId: card.channelId, messageId: card.messageId! },
        settledPingCard(card.content as Card, footer),
      );
    } catch (error) {
      await markPingCardResolved(db, card.id, false);
      ctx.log.warn(
        { escalation: escalationId, err: (error as Error).message },
        "ping card not edited; the next tick retries",
      );
    }
  }
}
