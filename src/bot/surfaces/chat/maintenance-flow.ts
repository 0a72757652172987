import type { HandlerContext } from "../../app/context";
import { describeCounts } from "../../app/maintenance/unclean";
import {
  endMaintenance,
  type MaintenanceRefusal,
  type MaintenanceSummary,
  startMaintenance,
} from "../../app/maintenance/windows";
import type { KnownUser } from "../../app/records";
import { when } from "./words";

const USAGE = "usage: /maintenance start [reason] (hold the whole deployment for a deploy), or /maintenance end";

const refusalWords = (refusal: MaintenanceRefusal): string =>
  refusal.error === "forbidden" ? "Only an admin can start or end a maintenance window." : refusal.message;

/**
 * `/maintenance start [reason]` opens a deployment-wide window (every process drains; ticks are held like a
 * pause; people can still talk, pause and approve); `/maintenance end` lets it go and releases what it held.
 * Said in the channel: a window concerns everyone there.
 */
export async function maintenanceFromChat(ctx: HandlerContext, user: KnownUser, text: string): Promise<string> {
  const [verb, ...rest] = text.trim().split(/\s+/);
  const reason = rest.join(" ").slice(0, 500);
  if (verb === "start") {
    const started = await startMaintenance(ctx, user, { scope: "deployment", ...(reason ? { reason } : {}) });
    if (!started.ok) return refusalWords(started);
    const { record } = started;
    const deadline = record.drainDeadline?.toISOString() ?? "-";
    return started.opened
      ? `Maintenance window ${record.id} started by ${user.name}: every process drains (deadline ${deadline}); ticks due meanwhile are held and released once at /maintenance end.`
      : `Maintenance window ${record.id} is already ${record.state} (started ${record.startedAt.toISOString()}).`;
  }
  if (verb === "end") {
    const ended = await endMaintenance(ctx, user, null);
    if (!ended.ok) return refusalWords(ended);
    return `Maintenance window ${ended.record.id} ended by ${user.name}: work goes out again, and what was held is released once.`;
  }
  return USAGE;
}

/** The maintenance lines of /status and the console overview: windows in force, unclean stops of the last day. */
export function maintenanceLines(summary: MaintenanceSummary): string[] {
  const windows = summary.windows.map(
    (w) =>
      `Maintenance ${w.id} (${w.scope === "deployment" ? "the whole deployment" : `process ${w.instance}`}): ${w.state} since ${when(w.since)}${w.reason ? `: ${w.reason}` : ""}`,
  );
  const unclean = summary.unclean.map(
    (u) => `Unclean stop of ${u.instance}, found by ${u.by} at ${when(u.at)}: ${describeCounts(u.counts)}`,
  );
  return [...windows, ...unclean];
}
