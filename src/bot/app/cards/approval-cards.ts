import { findPacketVersion, listWaitingDeadlines, type RunRecord } from "../../../store/approvals/runs";
import {
  type CardShows,
  listRunsWithOpenCards,
  markCardShows,
  readRunWithCards,
  type StoredCard,
} from "../../../store/chat/cards";
import { bindCardButtons, releasePostedCard } from "../../../store/chat/posted-cards";
import type { HandlerContext } from "../context";
import type { KnownAgent } from "../records";
import { cardTargets, reviewChannelsOf } from "./card-targets";
import type { CardPlatform, CardPosters } from "./ports";
import { postCards, settlePostedCard } from "./post-card";

export type { CardShows, StoredCard };

/**
 * A claim still without a message after this long was left by a crash between claim and post; it is given
 * back so the card gets posted. (Should the post have gone out after all, rita sees two cards; both decide
 * the same packet version, and a second card beats none.)
 */
const ABANDONED_CLAIM_MS = 60_000;

/** One run as its cards show it: the run, its agent, its cards, and the decision that ended its wait. */
export interface RunCards {
  run: RunRecord;
  agent: KnownAgent;
  cards: StoredCard[];
  /** The deciding version, who decided (a name) and when; null while the run waits or nobody decided. */
  decision: { version: number; by: string | null; at: Date } | null;
}

/** Reads a run with its cards, giving back the claims a crash left unposted; null when the run is gone. */
export async function readRunCards(ctx: HandlerContext, runId: string): Promise<RunCards | null> {
  const read = await readRunWithCards(ctx.store, runId);
  if (!read?.agent) return null;
  const { run, agent, deciding } = read;
  const cards: StoredCard[] = [];
  for (const card of read.cards) {
    if (card.messageId || ctx.now().getTime() - card.createdAt.getTime() <= ABANDONED_CLAIM_MS) cards.push(card);
    else await releasePostedCard(ctx.store.db, { kind: "approval", id: card.id });
  }
  // The decider's name is shown only on an open posted card that is about to be settled.
  const shown = deciding && cards.some((card) => card.shows === "open" && card.messageId);
  const decision = deciding && { version: deciding.version, by: shown ? deciding.actorName : null, at: deciding.at };
  return { run, agent, cards, decision };
}

/**
 * Settles one posted card: marks it as showing `shows` (of two racing syncs one wins), then edits it to what
 * `render` makes of its own packet version (a card keeps showing its version's packet and digest, whatever
 * the run is at now). A failed edit marks it open again and rejects, so the next sync retries.
 */
export async function settleApprovalCard<C>(
  ctx: HandlerContext,
  posters: CardPosters<C>,
  view: RunCards,
  card: StoredCard,
  shows: CardShows,
  render: (cardRun: RunRecord) => C,
): Promise<void> {
  const { store } = ctx;
  const { run } = view;
  await settlePostedCard(
    posters[card.platform as CardPlatform],
    { channelId: card.channelId, messageId: card.messageId! },
    (settled) =>
      settled
        ? markCardShows(store, card.id, "open", shows, ctx.now())
        : markCardShows(store, card.id, shows, "open", ctx.now()),
    async () => {
      const shown = (await findPacketVersion(store, run.id, card.version)) ?? run;
      return render({ ...run, version: card.version, packet: shown.packet, digest: shown.digest });
    },
  );
}

/** The approval buttons of the run's current version: bound to the run, the version and the FULL digest. */
export type ApprovalButtons = { approve: string; deny: string };

/**
 * Posts the waiting version's cards that are missing: to the agent's review channels, or to each reviewer's
 * DM. The buttons are bound once, on the first card this call posts.
 */
export async function postApprovalCards<C>(
  ctx: HandlerContext,
  posters: CardPosters<C>,
  view: Pick<RunCards, "run" | "agent">,
  render: (buttons: ApprovalButtons) => C,
): Promise<void> {
  const { run, agent } = view;
  const targets = await cardTargets(ctx, reviewChannelsOf(agent), run.reviewers, posters, (platform, user, error) =>
    ctx.log.warn({ run: run.id, platform, user, err: error.message }, "cannot open a DM for an approval card"),
  );
  const bind = () =>
    bindCardButtons(
      ctx.store.db,
      { tenantId: run.tenantId, agentId: run.agentId },
      { approve: "run.approve", deny: "run.deny" },
      { runId: run.id, version: run.version, digest: run.digest },
    );
  await postCards(
    ctx,
    { kind: "approval", runId: run.id, version: run.version },
    targets,
    posters,
    async () => render(await bind()),
    (target, error) => ctx.log.warn({ run: run.id, ...target, err: error.message }, "approval card not posted"),
  );
}

/** Runs with a card still open: what the periodic sweep looks at again. */
export const runsWithOpenCards = (ctx: HandlerContext): Promise<string[]> => listRunsWithOpenCards(ctx.store.db);

/** Every run that waits (with a deadline) or has an open card: what a sync at start looks at. */
export async function runsToSyncAtStart(ctx: HandlerContext): Promise<string[]> {
  const waiting = (await listWaitingDeadlines(ctx.store.db)).map((r) => r.id);
  return [...new Set([...waiting, ...(await runsWithOpenCards(ctx))])];
}
