import { parseDurationMs } from "./duration";

/**
 * How a destination behaves when it receives the same Idempotency-Key twice (design.md section 6).
 * - none: no deduplication; a blind retry after an unknown outcome could double the effect.
 * - key-retained: deduplicates a key for `retentionMs` after it first saw it.
 * - unique-external-id: the key is a unique id on the receiving side for good.
 * Any of them may name a status-lookup URL that says whether an effect with a given key exists.
 */
export type ReceivingContract = (
  | { kind: "none" }
  | { kind: "key-retained"; retentionMs: number }
  | { kind: "unique-external-id" }
) & { lookupUrl?: string };

/**
 * Parses the contract text stored with each outbox item:
 * "none", "key-retained 24h", "unique-external-id", each optionally followed by "lookup <url>".
 */
export function parseContract(text: string): ReceivingContract | null {
  const words = text.trim().split(/\s+/);
  let lookupUrl: string | undefined;
  const at = words.indexOf("lookup");
  if (at >= 0) {
    if (at !== words.length - 2) return null;
    lookupUrl = words[at + 1];
    words.splice(at, 2);
  }
  const extra = lookupUrl ? { lookupUrl } : {};
  const [kind, arg, ...rest] = words;
  if (rest.length) return null;
  if (kind === "none" && !arg) return { kind, ...extra };
  if (kind === "unique-external-id" && !arg) return { kind, ...extra };
  if (kind === "key-retained" && arg) {
    const retentionMs = parseDurationMs(arg);
    return retentionMs ? { kind, retentionMs, ...extra } : null;
  }
  return null;
}

export type UncertainOutcomeStep = "retry_same_key" | "lookup" | "needs_review";

/**
 * After a crash or timeout between DISPATCHED and ACKNOWLEDGED we do not know whether the effect happened.
 * Retry with the same key only while the destination still deduplicates it; otherwise look it up if the
 * destination can tell us; otherwise a person must decide.
 */
export function afterUncertainOutcome(
  contract: ReceivingContract,
  firstDispatchedAt: Date,
  now: Date,
): UncertainOutcomeStep {
  const stillDeduplicates =
    contract.kind === "unique-external-id" ||
    (contract.kind === "key-retained" && now.getTime() - firstDispatchedAt.getTime() < contract.retentionMs);
  if (stillDeduplicates) return "retry_same_key";
  return contract.lookupUrl ? "lookup" : "needs_review";
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 5 * 60_000 };

/** Exponential backoff; `jitter` in [0, 1) is a parameter so the rule stays pure and testable. */
export function retryDelayMs(attempt: number, policy: RetryPolicy, jitter = 0): number {
  const exponential = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(policy.maxDelayMs, Math.round(exponential * (1 + jitter / 2)));
}

/**
 * What one delivery attempt came to, in three classes (README "Delivery outcomes"):
 * - not sent: the request never left (refused connection, DNS or TLS failure, not fully written), so
 *   another try is safe whatever the contract; `permanent` when it never can leave (an unparsable URL);
 *   `review` when it never can leave as stored and a person settles it (a key a header cannot carry);
 * - sent, no answer (`uncertain`): the destination may have applied it, so the contract decides;
 * - answered: the status decides (`acknowledged`, `retryable` for 408, 429 and 5xx, `rejected`).
 */
export type AttemptOutcome =
  | { kind: "acknowledged"; status: number }
  | { kind: "retryable"; status?: number; error?: string }
  | { kind: "rejected"; status: number }
  | { kind: "not_sent"; error: string; permanent?: boolean; review?: boolean }
  | { kind: "uncertain"; error: string };

export type OutcomeClass = "not_sent" | "no_answer" | "answered";

export function outcomeClass(outcome: AttemptOutcome): OutcomeClass {
  if (outcome.kind === "not_sent") return "not_sent";
  if (outcome.kind === "uncertain") return "no_answer";
  return "answered";
}

/** What an attempt's record says happened: the status it was answered with, or the error. */
export function outcomeDetail(outcome: AttemptOutcome): string {
  if ("error" in outcome && outcome.error) return outcome.error;
  return "status" in outcome && outcome.status !== undefined ? `HTTP ${outcome.status}` : "no detail";
}

/** How each class opens an attempt's `lastResult`. */
const CLASS_WORDS: Record<OutcomeClass, string> = {
  not_sent: "not sent",
  no_answer: "no answer",
  answered: "answered",
};

/** The `lastResult` of an attempt that was not acknowledged: its class, what happened, when, which attempt. */
export function attemptResult(outcome: AttemptOutcome, at: Date, attempt: number): string {
  return `${CLASS_WORDS[outcomeClass(outcome)]}: ${outcomeDetail(outcome)} at ${at.toISOString()} (attempt ${attempt})`;
}

/** What happened, from a `lastResult` written by `attemptResult` (its class words dropped) or any other. */
export function resultDetail(lastResult: string): string {
  const words = Object.values(CLASS_WORDS).find((w) => lastResult.startsWith(`${w}: `));
  return words ? lastResult.slice(words.length + 2) : lastResult;
}

/** 2xx acknowledges; 408, 429 and 5xx are worth another try with the same key; other 4xx are final. */
export function classifyResponse(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: "acknowledged", status };
  if (status === 408 || status === 429 || status >= 500) return { kind: "retryable", status };
  return { kind: "rejected", status };
}

/** What the item becomes after an attempt that was not acknowledged. */
export type AfterAttempt =
  /** Try again at `at`: PLANNED when no attempt so far may have landed, DISPATCHED when one may have. */
  { step: "retry"; state: "PLANNED" | "DISPATCHED"; at: Date } | { step: "settle"; state: "FAILED" | "NEEDS_REVIEW" };

export interface AttemptHistory {
  /** Attempts made, this one included. */
  attempts: number;
  /** An earlier attempt of this item went out and was never answered: its effect may exist. */
  earlierUncertain: boolean;
}

/**
 * The rule for an attempt that was not acknowledged. A not-sent or error-answered attempt adds no doubt
 * of its own, so the item keeps whatever doubt earlier attempts left (an item with none is planned again;
 * one with an unanswered attempt behind it stays DISPATCHED, so the contract rule still runs before the
 * next send). An unanswered attempt is retried only through the contract rule (`afterUncertainOutcome`).
 * Once the budget is spent, an item that may have landed needs review and any other has failed. An item
 * that can never be sent as stored needs review at once: it leaves its lane, and a person settles it.
 */
export function afterFailedAttempt(
  outcome: Exclude<AttemptOutcome, { kind: "acknowledged" }>,
  history: AttemptHistory,
  at: Date,
  policy: RetryPolicy,
  jitter = 0,
): AfterAttempt {
  if (outcome.kind === "not_sent" && outcome.review) return { step: "settle", state: "NEEDS_REVIEW" };
  const doubt = outcome.kind === "uncertain" || history.earlierUncertain;
  const final = outcome.kind === "rejected" || (outcome.kind === "not_sent" && outcome.permanent === true);
  if (final || history.attempts >= policy.maxAttempts)
    return { step: "settle", state: doubt && outcome.kind !== "rejected" ? "NEEDS_REVIEW" : "FAILED" };
  const next = new Date(at.getTime() + retryDelayMs(history.attempts, policy, jitter));
  return { step: "retry", state: doubt ? "DISPATCHED" : "PLANNED", at: next };
}
