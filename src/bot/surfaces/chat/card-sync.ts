import {
  type ApprovalButtons,
  postApprovalCards,
  type RunCards,
  readRunCards,
  runsToSyncAtStart,
  runsWithOpenCards,
  settleApprovalCard,
} from "../../app/cards/approval-cards";
import { rememberDirectChannels } from "../../app/cards/card-targets";
import type { HandlerContext } from "../../app/context";
import { approvalCard, cardOutcome, outcomeFooter } from "./approval-card";
import type { CardPublisher, Platform } from "./types";

export interface CardSync {
  /** Makes every card of the run match the database; resolves when done. */
  sync(runId: string): Promise<void>;
  /** Every run that is waiting or has an open card: makes up for events missed while the bot was down. */
  syncAll(): Promise<void>;
  /** The `run.changed` reaction (wired by the composition root's reaction table): sync that run soon. */
  runChanged(runId: string): void;
  stop(): void;
}

type Publishers = Partial<Record<Platform, CardPublisher>>;

export interface CardSyncOptions {
  /**
   * How often runs with an open card are looked at again, to make up for a missed event or a failed edit.
   * Default 60 s; 0 turns the sweep off.
   */
  sweepMs?: number;
  /**
   * What a run's change waits for before its sync: the clicks' decisions under way in this process, so their
   * clickers' notes go out before the cards are edited (with 500 clicks at once the card syncs, a handful of
   * statements and an edit each, had taken a sixth of the time to the last note). Never longer than
   * `YIELD_MS`, so a steady stream of clicks does not hold the cards back.
   */
  yieldTo?: () => Promise<void>;
}

const YIELD_MS = 1_000;

/** Resolves when `yieldTo` does, or after YIELD_MS, whichever comes first; at once without one. */
function yielded(yieldTo: (() => Promise<void>) | undefined): Promise<void> {
  if (!yieldTo) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, YIELD_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    yieldTo().then(done, done);
  });
}

/**
 * Keeps the approval cards a view of the durable run (design.md section 5). `run.changed` is only a hint:
 * each sync re-reads the run and its cards, posts the open request's cards that are missing, and settles
 * every card whose version was decided, expired or superseded. Syncs of one run are queued one after the
 * other in this process; across processes, card claims and conditional marks keep each post and edit single.
 */
export function startCardSync(ctx: HandlerContext, platforms: Publishers, options: CardSyncOptions = {}): CardSync {
  const publishers = rememberDirectChannels(platforms);
  const sync = queuedPerRun(ctx, (runId) => syncRun(ctx, publishers, runId));
  let stopped = false;
  const stopSweep = startSweep(ctx, sync, options.sweepMs ?? 60_000);
  return {
    sync,
    async syncAll() {
      for (const runId of await runsToSyncAtStart(ctx)) await sync(runId);
    },
    runChanged: (runId) => {
      void yielded(options.yieldTo).then(() => {
        if (!stopped) void sync(runId);
      });
    },
    stop() {
      stopped = true; // a change after the stop is left to the next start's sync
      stopSweep();
    },
  };
}

/** Runs `syncOne` for a run after the run's earlier syncs in this process; a failure is logged, never thrown. */
function queuedPerRun(ctx: HandlerContext, syncOne: (runId: string) => Promise<void>) {
  const queues = new Map<string, Promise<void>>();
  return (runId: string): Promise<void> => {
    const next = (queues.get(runId) ?? Promise.resolve())
      .then(() => syncOne(runId))
      .catch((error: Error) => ctx.log.warn({ run: runId, err: error.message }, "card sync failed"));
    queues.set(runId, next);
    void next.finally(() => queues.get(runId) === next && queues.delete(runId));
    return next;
  };
}

/** Every `sweepMs`, the runs with an open card are synced again; returns what stops it. */
function startSweep(ctx: HandlerContext, sync: (runId: string) => Promise<void>, sweepMs: number): () => void {
  if (sweepMs <= 0) return () => {};
  const sweep = async () => {
    for (const runId of await runsWithOpenCards(ctx)) await sync(runId);
  };
  const timer = setInterval(
    () => void sweep().catch((error: Error) => ctx.log.warn({ err: error.message }, "card sweep failed")),
    sweepMs,
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** One run: settle each posted card whose version is over, then post the waiting version's missing cards. */
async function syncRun(ctx: HandlerContext, publishers: Publishers, runId: string): Promise<void> {
  if (Object.keys(publishers).length === 0) return; // no chat platform: nothing to show anywhere
  const view = await readRunCards(ctx, runId);
  if (!view) return;
  await settleOverCards(ctx, publishers, view);
  if (view.run.state === "waiting") {
    const { run, agent } = view;
    await postApprovalCards(ctx, publishers, view, (buttons: ApprovalButtons) =>
      approvalCard(run, agent.name, ctx.now(), buttons),
    );
  }
}

async function settleOverCards(ctx: HandlerContext, publishers: Publishers, view: RunCards): Promise<void> {
  const { run, agent, decision } = view;
  for (const card of view.cards) {
    const shows = card.shows === "open" ? cardOutcome(run, card.version, decision?.version ?? null) : null;
    if (!shows || !card.messageId) continue;
    const newest = run.state === "waiting" ? run.version : (decision?.version ?? run.version);
    const footer = outcomeFooter(shows, newest, decision && { by: decision.by, at: decision.at });
    await settleApprovalCard(ctx, publishers, view, card, shows, (cardRun) =>
      approvalCard(cardRun, agent.name, ctx.now(), null, footer),
    ).catch((error: Error) =>
      ctx.log.warn(
        { run: run.id, card: card.id, err: error.message },
        "approval card not edited; the next sync retries",
      ),
    );
  }
}
