import {
  type CardSubject,
  claimPostedCard,
  recordPostedCard,
  releasePostedCard,
} from "../../../store/chat/posted-cards";
import type { HandlerContext } from "../context";
import type { CardTarget } from "./card-targets";
import type { CardPoster, CardPosters, PostedRef } from "./ports";

/**
 * Posts one card of `subject` to each target: each card is claimed in the database before its post (so no
 * process posts it twice), recorded with its message once posted, and given back when the post fails (so a
 * later sync tries again). `render` is called once, on the first claim that is won, so a card nobody posts
 * binds no buttons. A failed post skips that one target, never the others. Resolves to the targets this call
 * posted to.
 */
export async function postCards<C>(
  ctx: HandlerContext,
  subject: CardSubject,
  targets: readonly CardTarget[],
  posters: CardPosters<C>,
  render: () => Promise<C>,
  onFailed: (target: CardTarget, error: Error) => void,
): Promise<CardTarget[]> {
  const { db } = ctx.store;
  const posted: CardTarget[] = [];
  let card: Promise<C> | undefined;
  for (const target of targets) {
    const claim = await claimPostedCard(db, subject, target);
    if (claim === null) continue;
    try {
      card ??= render();
      const ref = await posters[target.platform]!.post(target.channelId, await card);
      await recordPostedCard(db, claim, ref.messageId);
      posted.push(target);
    } catch (error) {
      await releasePostedCard(db, claim);
      onFailed(target, error as Error);
    }
  }
  return posted;
}

/**
 * Edits one posted card to its settled form. The card is marked settled first, conditionally (`mark(true)`
 * is false when another sync won the mark: that one edits); a failed edit marks it open again
 * (`mark(false)`), so the next sync retries. Resolves true when this call edited the card.
 */
export async function settlePostedCard<C>(
  poster: CardPoster<C> | undefined,
  ref: PostedRef,
  mark: (settled: boolean) => Promise<boolean>,
  render: () => Promise<C>,
): Promise<boolean> {
  if (!poster || !(await mark(true))) return false;
  try {
    await poster.edit(ref, await render());
    return true;
  } catch (error) {
    await mark(false);
    throw error;
  }
}
