import { findDeciding } from "../../../store/approvals/decisions";
import { findPacketVersion, findRun, listWaitingDeadlines, type RunRecord } from "../../../store/approvals/runs";
import { createChatButtons, newButtonId } from "../../../store/chat/buttons";
import {
  claimCard,
  listRunCards,
  listRunsWithOpenCards,
  markCardShows,
  recordPostedCard,
  releaseCardClaim,
  type StoredCard,
} from "../../../store/chat/cards";
import { findAgentById, userName } from "../../../store/directory/directory";
import type { HandlerContext } from "../../app/context";
import type { KnownAgent } from "../../app/records";
import { type ApprovalTokens, approvalCard, cardOutcome, outcomeFooter } from "./approval-card";
import { cardTargets, rememberDirectChannels, reviewChannelsOf } from "./card-targets";
import type { CardPublisher, Platform } from "./types";

export interface CardSync {
  /** Makes every card of the run match the database; resolves when done. */
  sync(runId: string): Promise<void>;
  /** Every run that is waiting or has an open card: makes up for events missed while the bot was down. */
  syncAll(): Promise<void>;
  stop(): void;
}

type Publishers = Partial<Record<Platform, CardPublisher>>;

/**
 * A claim still without a message after this long was left by a crash between claim and post; it is given
 * back so the card gets posted. (Should the post have gone out after all, rita sees two cards; both decide
 * the same packet version, and a second card beats none.)
 */
const ABANDONED_CLAIM_MS = 60_000;

/**
 * Keeps the approval cards a view of the durable run (design.md section 5). `run.changed` is only a hint:
 * each sync re-reads the run and its cards, posts the open request's cards that are missing, and settles
 * every card whose version was decided, expired or superseded. Syncs of one run are queued one after the
 * other in this process; across processes, card claims and conditional marks keep each post and edit single.
 */
export interface CardSyncOptions {
  /**
   * How often runs with an open card are looked at again, to make up for a missed event or a failed edit.
   * Default 60 s; 0 turns the sweep off.
   */
  sweepMs?: number;
}

export function startCardSync(ctx: HandlerContext, platforms: Publishers, options: CardSyncOptions = {}): CardSync {
  const publishers = rememberDirectChannels(platforms);
  const queues = new Map<string, Promise<void>>();
  const { db } = ctx.store;

  const sync = (runId: string): Promise<void> => {
    const next = (queues.get(runId) ?? Promise.resolve())
      .then(() => syncRun(runId))
      .catch((error: Error) => ctx.log.warn({ run: runId, err: error.message }, "card sync failed"));
    queues.set(runId, next);
    void next.finally(() => queues.get(runId) === next && queues.delete(runId));
    return next;
  };

  async function syncRun(runId: string): Promise<void> {
    if (Object.keys(publishers).length === 0) return; // no chat platform: nothing to show anywhere
    const run = await findRun(db, runId);
    const agent = run && (await findAgentById(db, run.agentId));
    if (!run || !agent) return;
    const cards = await listRunCards(db, runId);
    const deciding = run.state === "waiting" ? null : await findDeciding(db, runId);
    for (const card of cards) {
      if (!card.messageId && ctx.now().getTime() - card.createdAt.getTime() > ABANDONED_CLAIM_MS) {
        await releaseCardClaim(db, card.id);
        continue;
      }
      const shows = card.shows === "open" ? cardOutcome(run, card.version, deciding?.version ?? null) : null;
      if (shows && card.messageId) {
        const decision = deciding && { by: await userName(db, deciding.actorId), at: deciding.at };
        const newest = run.state === "waiting" ? run.version : (deciding?.version ?? run.version);
        await settle(run, agent, card, shows, outcomeFooter(shows, newest, decision)).catch((error: Error) =>
          ctx.log.warn(
            { run: runId, card: card.id, err: error.message },
            "approval card not edited; the next sync retries",
          ),
        );
      }
    }
    if (run.state === "waiting") await postMissing(run, agent);
  }

  async function settle(
    run: RunRecord,
    agent: KnownAgent,
    card: StoredCard,
    shows: StoredCard["shows"],
    footer: string,
  ) {
    const publisher = publishers[card.platform as Platform];
    if (!publisher || !(await markCardShows(db, card.id, "open", shows))) return;
    // The card keeps showing its own version's packet and digest, whatever the run is at now.
    const shown = (await findPacketVersion(db, run.id, card.version)) ?? run;
    const cardRun = { ...run, version: card.version, packet: shown.packet, digest: shown.digest };
    const settled = approvalCard(cardRun, agent.name, ctx.now(), null, footer);
    try {
      await publisher.edit({ channelId: card.channelId, messageId: card.messageId! }, settled);
    } catch (error) {
      // Shown as open again, so the next sync retries the edit.
      await markCardShows(db, card.id, shows, "open");
      throw error;
    }
  }

  async function postMissing(run: RunRecord, agent: KnownAgent) {
    const targets = await cardTargets(db, reviewChannelsOf(agent), run.reviewers, publishers, (platform, user, error) =>
      ctx.log.warn({ run: run.id, platform, user, err: error.message }, "cannot open a DM for an approval card"),
    );
    let tokens: ApprovalTokens | undefined;
    for (const target of targets) {
      const claim = await claimCard(db, { runId: run.id, version: run.version, ...target });
      if (claim === null) continue;
      tokens ??= await bindButtons(run);
      try {
        const ref = await publishers[target.platform]!.post(
          target.channelId,
          approvalCard(run, agent.name, ctx.now(), tokens),
        );
        await recordPostedCard(db, claim, ref.messageId);
      } catch (error) {
        await releaseCardClaim(db, claim);
        ctx.log.warn({ run: run.id, ...target, err: (error as Error).message }, "approval card not posted");
      }
    }
  }

  /** The buttons of one packet version, bound to the run, the version and the FULL digest. */
  async function bindButtons(run: RunRecord): Promise<ApprovalTokens> {
    const tokens = { approve: newButtonId(), deny: newButtonId() };
    const base = { tenantId: run.tenantId, agentId: run.agentId, requestedBy: null };
    const payload = { runId: run.id, version: run.version, digest: run.digest };
    await createChatButtons(db, [
      { ...base, id: tokens.approve, action: "run.approve", payload },
      { ...base, id: tokens.deny, action: "run.deny", payload },
    ]);
    return tokens;
  }

  const onChanged = (runId: string) => void sync(runId);
  ctx.events.on("run.changed", onChanged);
  const sweepMs = options.sweepMs ?? 60_000;
  const sweep = async () => {
    for (const runId of await listRunsWithOpenCards(db)) await sync(runId);
  };
  const timer =
    sweepMs > 0
      ? setInterval(
          () => void sweep().catch((error: Error) => ctx.log.warn({ err: error.message }, "card sweep failed")),
          sweepMs,
        )
      : undefined;
  timer?.unref();
  return {
    sync,
    async syncAll() {
      const waiting = (await listWaitingDeadlines(db)).map((r) => r.id);
      for (const runId of new Set([...waiting, ...(await listRunsWithOpenCards(db))])) await sync(runId);
    },
    stop() {
      clearInterval(timer);
      ctx.events.off("run.changed", onChanged);
    },
  };
}
