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
