import { mayRunMaintenance } from "../../../policy/access";
import { DEFAULT_DRAIN_TIMEOUT_MS } from "../../../policy/drain";
import { shownState, type WindowScope } from "../../../policy/maintenance";
import type { KnownUser } from "../../../store/directory/directory";
import {
  instanceExists,
  instancePage,
  type RecoveryReport,
  uncleanInstances,
} from "../../../store/maintenance/instances";
import {
  activeWindows,
  endWindow,
  findWindow,
  type MaintenanceRecord,
  openWindow,
} from "../../../store/maintenance/windows";
import type { HandlerContext } from "../context";

export type MaintenanceRefusal =
  | { ok: false; error: "forbidden" }
  | { ok: false; error: "not_found"; message: string }
  | { ok: false; error: "invalid"; field: string; message: string };

export interface StartMaintenance {
  scope?: WindowScope;
  instance?: string;
  reason?: string;
  /** How long the drain may take, in ms (default HOLDFAST_DRAIN_TIMEOUT). */
  drainTimeoutMs?: number;
}

/**
 * Opens a maintenance window (admins): this process (the default), a named one, or the whole deployment.
 * The record is written and audited; each process it applies to sees it (at once here, within a second
 * elsewhere) and drains. A deployment-wide window already open is returned as it is (`opened: false`).
 */
export async function startMaintenance(
  ctx: HandlerContext,
  user: KnownUser,
  request: StartMaintenance,
): Promise<{ ok: true; record: MaintenanceRecord; opened: boolean } | MaintenanceRefusal> {
  if (!mayRunMaintenance(user)) return { ok: false, error: "forbidden" };
  const scope = request.scope ?? "instance";
  const instance = scope === "deployment" ? null : (request.instance ?? ctx.instance ?? null);
  if (scope === "instance" && !instance)
    return { ok: false, error: "invalid", field: "instance", message: "name the instance" };
  if (scope === "deployment" && request.instance)
    return { ok: false, error: "invalid", field: "instance", message: "a deployment-wide window names no instance" };
  if (instance && !(await instanceExists(ctx.store.db, instance)))
    return { ok: false, error: "not_found", message: `no instance ${instance}` };
  const now = ctx.now();
  const timeout = request.drainTimeoutMs ?? ctx.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const { record, opened } = await openWindow(ctx.store.db, {
    scope,
    instance,
    reason: request.reason ?? null,
    by: user.id,
    drainDeadline: new Date(now.getTime() + timeout),
    acceptingWork: false,
    now,
  });
  if (opened) {
    ctx.log.info(
      { maintenance: record.id, scope, instance, by: user.id },
      `maintenance window ${record.id} opened (${scope})`,
    );
    ctx.events.emit("maintenance.changed");
  }
  return { ok: true, record, opened };
}

/**
 * Lets a window go (admins): a deployment-wide one releases what it held, once, through the release loop.
 * `id` null: the deployment-wide window in force (chat's `/maintenance end`).
 */
export async function endMaintenance(
  ctx: HandlerContext,
  user: KnownUser,
  given: string | null,
): Promise<{ ok: true; record: MaintenanceRecord; releases: number } | MaintenanceRefusal> {
  if (!mayRunMaintenance(user)) return { ok: false, error: "forbidden" };
  const id = given ?? (await activeWindows(ctx.store.db)).find((w) => w.scope === "deployment")?.id;
  if (!id) return { ok: false, error: "not_found", message: "no deployment-wide maintenance window is open" };
  const ended = await endWindow(ctx.store.db, id, user.id, ctx.now());
  if (!ended) {
    const known = await findWindow(ctx.store.db, id);
    return { ok: false, error: "not_found", message: known ? `window ${id} is ${known.state}` : `no window ${id}` };
  }
  for (const releaseId of ended.releaseIds) ctx.events.emit("release.opened", releaseId);
  ctx.events.emit("control.changed", "deployment");
  ctx.events.emit("maintenance.changed");
  ctx.log.info({ maintenance: id, by: user.id, releases: ended.releaseIds.length }, `maintenance window ${id} ended`);
  return { ok: true, record: ended.record, releases: ended.releaseIds.length };
}

export interface InstanceView {
  instance: string;
  state: string;
  startedAt: string;
  lastSeenAt: string;
  stoppedAt: string | null;
  previousShutdown: "clean" | "unclean" | null;
}

/** Every process the deployment knows (admins), by name; a heartbeat older than three intervals is `lost`. */
export async function listInstances(
  ctx: HandlerContext,
  user: KnownUser,
  page: { limit: number; after?: string },
): Promise<{ ok: true; items: InstanceView[]; next?: string } | MaintenanceRefusal> {
  if (!mayRunMaintenance(user)) return { ok: false, error: "forbidden" };
  const now = ctx.now();
  const found = await instancePage(ctx.store.db, page);
  const items = found.items.map((i) => ({
    instance: i.instance,
    state: shownState(i, now),
    startedAt: i.startedAt.toISOString(),
    lastSeenAt: i.lastSeenAt.toISOString(),
    stoppedAt: i.stoppedAt?.toISOString() ?? null,
    previousShutdown: i.previousShutdown,
  }));
  return { ok: true, items, ...(found.next === undefined ? {} : { next: found.next }) };
}

/** What /status and the console overview say about maintenance: windows in force, unclean stops found. */
export interface MaintenanceSummary {
  windows: Array<{
    id: string;
    scope: string;
    instance: string | null;
    state: string;
    reason: string | null;
    since: Date;
  }>;
  unclean: Array<{ instance: string; at: string; by: string; counts: Record<string, number> }>;
}

/** Unclean stops are shown for a day after they were found. */
const UNCLEAN_SHOWN_MS = 24 * 3600_000;

export async function maintenanceSummary(ctx: HandlerContext): Promise<MaintenanceSummary> {
  const { db } = ctx.store;
  const now = ctx.now().getTime();
  const [windows, unclean] = await Promise.all([activeWindows(db), uncleanInstances(db)]);
  return {
    windows: windows.map((w) => ({
      id: w.id,
      scope: w.scope,
      instance: w.instance,
      state: w.state,
      reason: w.reason,
      since: w.startedAt,
    })),
    unclean: unclean
      .flatMap((i) => {
        const report = parseReport(i.recovery);
        return report ? [{ instance: i.instance, at: report.at, by: report.by, counts: report.counts }] : [];
      })
      .filter((u) => now - Date.parse(u.at) < UNCLEAN_SHOWN_MS),
  };
}

function parseReport(text: string | null): RecoveryReport | null {
  try {
    return text ? (JSON.parse(text) as RecoveryReport) : null;
  } catch {
    return null;
  }
}
