import { listOpenPingCards, markPingCardResolved } from "../../../store/escalations/cards";
import { resolveEscalation } from "../../../store/escalations/ledger";
import type { StoredEscalation } from "../../../store/escalations/records";
import type { CardPlatform } from "../cards/ports";
import { settlePostedCard } from "../cards/post-card";
import type { HandlerContext } from "../context";
import { resolutionOf } from "./item-facts";
import type { PingDeps } from "./ports";

/** Resolves an escalation whose item no longer waits, then edits its cards (only the resolving process does). */
export async function settleEscalation<C>(ctx: HandlerContext, deps: PingDeps<C>, escalation: StoredEscalation) {
  const now = ctx.now();
  const footer = deps.render.resolution(await resolutionOf(ctx.store, escalation), now);
  if (await resolveEscalation(ctx.store, escalation, footer, now))
    await settlePingCards(ctx, deps, escalation.id, footer);
}

/**
 * Every open card of a resolved escalation shows its outcome and loses its buttons, like approval cards. A
 * card is marked first (one editor wins); a failed edit marks it open again, so the next tick retries.
 */
export async function settlePingCards<C>(ctx: HandlerContext, deps: PingDeps<C>, escalationId: string, footer: string) {
  const { db } = ctx.store;
  for (const card of await listOpenPingCards(db, escalationId)) {
    await settlePostedCard(
      deps.publishers[card.platform as CardPlatform],
      { channelId: card.channelId, messageId: card.messageId! },
      (settled) => markPingCardResolved(db, card.id, settled),
      async () => deps.render.settled(card.content as C, footer),
    ).catch((error: Error) =>
      ctx.log.warn({ escalation: escalationId, err: error.message }, "ping card not edited; the next tick retries"),
    );
  }
}
