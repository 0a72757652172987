import { resultDetail } from "./delivery";

/**
 * What a delivery's last result says to someone who may not see its details (design.md section 11: the
 * full text, such as `connect ECONNREFUSED 10.0.0.7:6379`, would make deliveries a port scanner for every
 * member). Only the agent's principal and admins see the full `lastResult`; others see its class.
 * The classes follow the results the delivery loop writes: the answer's status, a timeout, a refused
 * address, an unknown outcome, or a connection that failed.
 */
export function deliveryClass(state: string, lastResult: string | null): string | null {
  if (lastResult === null) return null;
  if (state === "ACKNOWLEDGED" || state === "OBSERVED") return "delivered";
  if (state === "ABANDONED") return "abandoned";
  if (state === "NEEDS_REVIEW") return "outcome unknown";
  const detail = resultDetail(lastResult);
  const status = /^HTTP (\d{3})\b/.exec(detail);
  if (status) return `HTTP ${status[1]}`;
  if (detail.startsWith("no answer within")) return "timeout";
  if (detail.startsWith("refused ") || / resolves to /.test(detail)) return "address refused";
  return "connection failed";
}

/** What a delivery the contract cannot settle records: the attempt before, what it got, and the contract. */
export const unknownOutcomeText = (attempt: number, at: Date | null, result: string | null, contract: string) =>
  `outcome unknown after attempt ${attempt} at ${at?.toISOString() ?? "?"}: ${result ?? "no answer"}; contract '${contract}'`;

const UNKNOWN_OUTCOME = /^outcome unknown after attempt \d+ at \S+: (.*); contract '[^']*'$/s;

/**
 * The last attempt's own result within `unknownOutcomeText`, for a page that shows the attempt, its time and
 * the unknown outcome apart (so the result does not say them twice); any other result as it is.
 */
export const attemptResultOf = (lastResult: string): string => UNKNOWN_OUTCOME.exec(lastResult)?.[1] ?? lastResult;
