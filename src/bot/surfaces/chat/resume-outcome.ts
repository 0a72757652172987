import type { HeldToRelease } from "../../app/chat/resume";
import { releasedWords, when } from "./words";

/** The latest resume since a card was posted, as the use case found it (`by` null: the scheduler). */
export type ResumedSince = { by: string | null; at: Date } | null;

/** The footer of a card whose Confirm resumed the agent: what its preflight showed is what was released. */
export const resumedFooter = (resumer: string, held: HeldToRelease, now: Date): string =>
  `Resumed by ${resumer} at ${when(now)}; released ${releasedWords(held)}.`;

/**
 * The footer for a Confirm that found the agent running: the card keeps the record of who resumed it (the
 * first Confirm's footer, or, when another click won the race or it was resumed elsewhere after this card
 * was posted, the audit log's resume), and only without either says it is already running.
 */
export function alreadyRunningFooter(kept: unknown, resumed: ResumedSince, now: Date): string {
  if (typeof kept === "string") return kept;
  return resumedWords(resumed) ?? `Already running at ${when(now)}.`;
}

/**
 * The footer of an outdated card settled because nothing is paused any more: it resumed nothing, and it
 * still says who resumed the agent after it was posted (another card, the API or the scheduler).
 */
export function outOfDateFooter(resumed: ResumedSince, now: Date): string {
  const head = `Out of date at ${when(now)}: nothing was resumed.`;
  const words = resumedWords(resumed);
  return words ? `${head} ${words}` : head;
}

const resumedWords = (resumed: ResumedSince): string | null =>
  resumed ? `Resumed by ${resumed.by ?? "the scheduler"} at ${when(resumed.at)}.` : null;
