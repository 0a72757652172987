import { isLost, type MaintenanceState, type PreviousShutdown } from "../../policy/maintenance";
import type { Db } from "../connection/client";
import { ascendingBy, type Page, paged, type TextPage } from "../lists/pages";

export interface StoredInstance {
  instance: string;
  bootId: string;
  state: MaintenanceState;
  acceptingWork: boolean;
  inFlight: number;
  heartbeatMs: number;
  startedAt: Date;
  lastSeenAt: Date;
  stoppedAt: Date | null;
  previousShutdown: PreviousShutdown;
  /** The classification of the last unclean stop found (JSON as stored), or null. */
  recovery: string | null;
}

const instanceOf = (row: Record<keyof StoredInstance, unknown>): StoredInstance => ({
  ...(row as unknown as StoredInstance),
  previousShutdown: (row.previousShutdown as PreviousShutdown) ?? null,
});

/** The run a start found under its name before it took the name over: unclean when it never reached STOPPED. */
export interface PreviousRun {
  bootId: string;
  startedAt: Date;
  clean: boolean;
  /** Classified already (by a peer that saw it lost). */
  recovered: boolean;
}

/**
 * Takes the name for this run. The row's last run decides `previousShutdown`: none (first start), clean
 * (it recorded STOPPED) or unclean. One conditional write per start.
 */
export async function registerInstance(
  db: Db,
  run: { instance: string; bootId: string; heartbeatMs: number; now: Date },
): Promise<PreviousRun | null> {
  return db.$transaction(async (tx) => {
    const before = await tx.instance.findUnique({ where: { instance: run.instance } });
    const previous: PreviousRun | null = before && {
      bootId: before.bootId,
      startedAt: before.startedAt,
      clean: before.state === "STOPPED",
      recovered: recoveredBoot(before.recovery) === before.bootId,
    };
    const previousShutdown: PreviousShutdown = previous ? (previous.clean ? "clean" : "unclean") : null;
    const fresh = {
      bootId: run.bootId,
      state: "RUNNING",
      acceptingWork: true,
      inFlight: 0,
      heartbeatMs: run.heartbeatMs,
      startedAt: run.now,
      lastSeenAt: run.now,
      stoppedAt: null,
      previousShutdown,
    };
    await tx.instance.upsert({
      where: { instance: run.instance },
      create: { instance: run.instance, ...fresh },
      update: fresh,
    });
    return previous;
  });
}

/** The heartbeat: what this run is doing now. Written only while the name is still this run's. */
export async function beat(
  db: Db,
  run: { instance: string; bootId: string },
  now: { state: MaintenanceState; acceptingWork: boolean; inFlight: number; at: Date },
): Promise<boolean> {
  const written = await db.instance.updateMany({
    where: { instance: run.instance, bootId: run.bootId },
    data: {
      state: now.state,
      acceptingWork: now.acceptingWork,
      inFlight: now.inFlight,
      lastSeenAt: now.at,
      ...(now.state === "STOPPED" ? { stoppedAt: now.at } : {}),
    },
  });
  return written.count === 1;
}

/** Instances, by name. */
export async function instancePage(db: Db, page: TextPage): Promise<Page<StoredInstance, string>> {
  const { after, orderBy, take } = ascendingBy("instance", page);
  const rows = await db.instance.findMany({ where: after, orderBy, take });
  return paged(rows.map(instanceOf), page.limit, (i) => i.instance);
}

/** Every instance whose heartbeat is older than three of its intervals, not classified yet. */
export async function lostUnrecovered(db: Db, now: Date): Promise<StoredInstance[]> {
  const rows = await db.instance.findMany({ where: { state: { not: "STOPPED" } } });
  return rows.map(instanceOf).filter((i) => isLost(i, now) && recoveredBoot(i.recovery) !== i.bootId);
}

/** Instances that answer: heartbeat fresh, not STOPPED. */
export async function liveInstances(db: Db, now: Date): Promise<StoredInstance[]> {
  const rows = await db.instance.findMany({ where: { state: { not: "STOPPED" } } });
  return rows.map(instanceOf).filter((i) => !isLost(i, now));
}

/** Instances that were found after an unclean stop, for /status and the console. */
export async function uncleanInstances(db: Db): Promise<StoredInstance[]> {
  const rows = await db.instance.findMany({ where: { recovery: { not: null } }, orderBy: { instance: "asc" } });
  return rows.map(instanceOf);
}

export interface RecoveryReport {
  bootId: string;
  at: string;
  by: string;
  counts: Record<string, number>;
}

/**
 * Records that the run `bootId` of `instance` was classified, once: of two processes that classify the same
 * lost run, only the first write wins (the caller also holds a lease while it works).
 */
export async function recordRecovery(db: Db, instance: string, report: RecoveryReport): Promise<boolean> {
  const row = await db.instance.findUnique({ where: { instance }, select: { recovery: true, bootId: true } });
  if (!row || recoveredBoot(row.recovery) === report.bootId) return false;
  const written = await db.instance.updateMany({
    where: { instance, recovery: row.recovery },
    data: { recovery: JSON.stringify(report) },
  });
  return written.count === 1;
}

const recoveredBoot = (recovery: string | null): string | null => {
  if (!recovery) return null;
  try {
    return (JSON.parse(recovery) as RecoveryReport).bootId ?? null;
  } catch {
    return null;
  }
};

export async function instanceExists(db: Db, instance: string): Promise<boolean> {
  return (await db.instance.count({ where: { instance } })) === 1;
}
