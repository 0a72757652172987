import { parseContract } from "./delivery";
import { type Cadence, dueTimesBetween } from "./schedule";

// The resume checklist (design.md section 12): what Holdfast checks before held work goes out, each check a
// verdict in plain words. The facts come from the store and the agent; the verdicts are decided here only.

export type CheckName = "checkpoint" | "pending" | "inbound" | "credentials" | "idempotency" | "actor";
export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckItem {
  check: CheckName;
  status: CheckStatus;
  detail: string;
  /** The checkpoint check's two values, for the card: what Holdfast recorded and what the agent answered. */
  recorded?: string | null;
  reported?: string | null;
  /** The idempotency check's actions that go out with retries off. */
  actions?: string[];
}

export const CHECK_ORDER: readonly CheckName[] = [
  "checkpoint",
  "pending",
  "inbound",
  "credentials",
  "idempotency",
  "actor",
];

export const checklistFails = (list: readonly CheckItem[]): boolean => list.some((c) => c.status === "fail");

/** One line for the audit log: every check's status, and the words of those that did not pass. */
export const checklistSummary = (list: readonly CheckItem[]): string =>
  `checklist: ${list.map((c) => (c.status === "ok" ? `${c.check} ok` : `${c.check} ${c.status} (${c.detail})`)).join(", ")}`;

/** What came back from the readiness call to the agent's webhook. */
export type ReadinessAnswer =
  | { kind: "no_webhook" }
  | { kind: "no_answer"; why: string }
  | { kind: "answered"; body: unknown };

const quoted = (name: string | null) => (name === null ? "none" : `"${name}"`);

/**
 * The agent's own word on where it stands. An agent that answered 2xx without a readiness answer (an older
 * agent, or a plain receiver) is not checked, like one without a webhook: it was reachable, it just does not
 * speak the readiness call. No answer at all, `ready: false` or another checkpoint stops the resume.
 */
export function judgeCheckpoint(answer: ReadinessAnswer, recorded: string | null): CheckItem {
  const item = (status: CheckStatus, detail: string, reported?: string | null): CheckItem => ({
    check: "checkpoint",
    status,
    detail,
    recorded,
    ...(reported !== undefined ? { reported } : {}),
  });
  if (answer.kind === "no_webhook") return item("warn", "not checked: the agent has no webhook");
  if (answer.kind === "no_answer") return item("fail", `the agent did not answer (${answer.why})`);
  const body = answer.body as { ready?: unknown; checkpoint?: unknown } | null;
  if (!body || typeof body !== "object" || typeof body.ready !== "boolean")
    return item("warn", "not checked: the agent's webhook answered without a readiness answer");
  const reported = typeof body.checkpoint === "string" ? body.checkpoint : null;
  if (!body.ready)
    return item(
      "fail",
      `the agent says it is not ready (it reports ${quoted(reported)}, Holdfast recorded ${quoted(recorded)})`,
      reported,
    );
  if (reported !== recorded)
    return item(
      "fail",
      `the agent reports checkpoint ${quoted(reported)}; Holdfast recorded ${quoted(recorded)}`,
      reported,
    );
  return item(
    "ok",
    recorded === null
      ? "the agent is ready (no checkpoint recorded)"
      : `the agent is at ${quoted(recorded)}, as recorded`,
    reported,
  );
}

export interface TriggerLedger {
  key: string;
  cadence: Cadence;
  /** Due times are expected after this (the pause, or the trigger's creation when it came later)... */
  after: Date;
  /** ...up to the last one a tick recorded (later ones are not due yet or are recorded by the catch-up). */
  upTo: Date | null;
  /** The due times recorded for it after `after`, one per occurrence row. */
  recorded: Date[];
}

/** Each trigger's due times since the pause form an unbroken sequence, and each held action is planned once. */
export function judgePending(
  triggers: readonly TriggerLedger[],
  plannedPerRun: ReadonlyMap<string, number>,
): CheckItem {
  const problems: string[] = [];
  let held = 0;
  for (const t of triggers) {
    held += t.recorded.length;
    const counts = new Map<number, number>();
    for (const at of t.recorded) counts.set(at.getTime(), (counts.get(at.getTime()) ?? 0) + 1);
    const expected = t.upTo ? dueTimesBetween(t.cadence, t.after, t.upTo) : [];
    for (const at of expected)
      if (!counts.has(at.getTime())) problems.push(`trigger ${t.key}: due time ${at.toISOString()} is missing`);
    for (const [at, n] of counts)
      if (n > 1) problems.push(`trigger ${t.key}: due time ${new Date(at).toISOString()} is held ${n} times`);
  }
  for (const [run, n] of plannedPerRun)
    if (n > 1) problems.push(`run ${run}: its approved action is planned ${n} times`);
  if (problems.length) return { check: "pending", status: "fail", detail: problems.join("; ") };
  const actions = [...plannedPerRun.values()].reduce((a, b) => a + b, 0);
  return {
    check: "pending",
    status: "ok",
    detail: `${held} held due time(s) in unbroken sequence, ${actions} held action(s) each planned once`,
  };
}

/** Every event that arrived during the pause still waits; one delivered meanwhile went out behind the hold. */
export function judgeInbound(held: number, deliveredDuringPause: readonly string[]): CheckItem {
  if (deliveredDuringPause.length)
    return {
      check: "inbound",
      status: "fail",
      detail: `delivered during the pause: ${deliveredDuringPause.join(", ")}`,
    };
  return { check: "inbound", status: "ok", detail: `${held} event(s) received during the pause, all unprocessed` };
}

/** The pause revoked the agent's tokens; the agent mints fresh ones after the resume. */
export const judgeCredentials = (revoked: number): CheckItem => ({
  check: "credentials",
  status: "ok",
  detail: `${revoked} token(s) revoked at the pause; the agent mints fresh ones after the resume`,
});

export interface HeldAction {
  key: string;
  destination: string;
  contract: string;
  approvedAt: Date;
}

/**
 * Which held actions a destination can no longer deduplicate: contract `none`, or a `key-retained` window
 * that has passed since the approval. They are still released, but with retries off.
 */
export function staleIdempotency(actions: readonly HeldAction[], now: Date): HeldAction[] {
  return actions.filter((a) => {
    const contract = parseContract(a.contract);
    if (!contract || contract.kind === "none") return true;
    return contract.kind === "key-retained" && now.getTime() - a.approvedAt.getTime() >= contract.retentionMs;
  });
}

export function judgeIdempotency(actions: readonly HeldAction[], now: Date): CheckItem {
  const stale = staleIdempotency(actions, now);
  if (stale.length === 0)
    return { check: "idempotency", status: "ok", detail: `${actions.length} held action(s), each still deduplicated` };
  const named = stale.map((a) => `${a.key} (${a.contract}, approved ${a.approvedAt.toISOString()})`);
  return {
    check: "idempotency",
    status: "warn",
    detail: `their destination can no longer deduplicate a resend, so they go out with retries off: ${named.join(", ")}`,
    actions: stale.map((a) => a.key),
  };
}

export const judgeActor = (name: string, role: string): CheckItem => ({
  check: "actor",
  status: "ok",
  detail: `${name} (${role}) may resume this agent`,
});
