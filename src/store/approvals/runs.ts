import type { RunState } from "../../policy/approval";
import type { Db, Store, Tx } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";
import { asDate, asDateOrNull, rows, sqlText } from "../connection/sql";

/** A run as stored (design.md section 5): the durable record of one piece of agent work under review. */
export interface RunRecord {
  id: string;
  tenantId: string;
  agentId: string;
  operation: string;
  destination: string;
  state: RunState;
  version: number;
  digest: string;
  packet: string;
  checkpoint: string | null;
  /** The run's named state variables (set by the agent's state deltas). */
  vars: Record<string, unknown>;
  deadline: Date | null;
  escalateAfterSeconds: number | null;
  /** User ids of the assigned reviewers. */
  reviewers: string[];
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type RunRow = NonNullable<Awaited<ReturnType<Db["run"]["findUnique"]>>>;

export const toRunRecord = (row: RunRow): RunRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  agentId: row.agentId,
  operation: row.operation ?? "",
  destination: row.destination ?? "",
  state: row.state as RunState,
  version: row.version,
  digest: row.digest ?? "",
  packet: row.packet ?? "null",
  checkpoint: row.checkpoint,
  vars: JSON.parse(row.vars) as Record<string, unknown>,
  deadline: row.deadline,
  escalateAfterSeconds: row.escalateAfter,
  reviewers: JSON.parse(row.reviewers) as string[],
  decidedBy: row.decidedBy,
  decidedAt: row.decidedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const RAW_COLUMNS = [
  "id",
  "tenantId",
  "agentId",
  "operation",
  "destination",
  "state",
  "version",
  "digest",
  "packet",
  "checkpoint",
  "vars",
  "deadline",
  "escalateAfter",
  "reviewers",
  "decidedBy",
  "decidedAt",
  "createdAt",
  "updatedAt",
] as const;

/** The Run columns a RunRecord is made of, for a statement of the store's own (`alias`: the table's name in it). */
export const RUN_COLUMNS = (alias: string): string => RAW_COLUMNS.map((c) => `${alias}."${c}"`).join(", ");

/** A Run row as the store's own statements read it: timestamps as either database returns them. */
export type RawRunRow = Omit<RunRow, "deadline" | "decidedAt" | "createdAt" | "updatedAt" | "policyVersion"> & {
  deadline: unknown;
  decidedAt: unknown;
  createdAt: unknown;
  updatedAt: unknown;
};

export const rawToRunRecord = (row: RawRunRow): RunRecord =>
  toRunRecord({
    ...row,
    version: Number(row.version),
    escalateAfter: row.escalateAfter === null ? null : Number(row.escalateAfter),
    policyVersion: 1,
    deadline: asDateOrNull(row.deadline),
    decidedAt: asDateOrNull(row.decidedAt),
    createdAt: asDate(row.createdAt),
    updatedAt: asDate(row.updatedAt),
  });

export async function findRun(db: Db | Tx, id: string): Promise<RunRecord | null> {
  const row = await db.run.findUnique({ where: { id } });
  return row ? toRunRecord(row) : null;
}

export interface NewRun {
  id: string;
  tenantId: string;
  agentId: string;
  operation: string;
  destination: string;
  packet: string;
  digest: string;
  checkpoint: string | null;
  deadline: Date;
  escalateAfterSeconds: number | null;
  reviewers: string[];
}

/** Creates the run waiting at version 1 with its first packet version. `exists` when the id is taken. */
export async function createRun(db: Db, run: NewRun): Promise<"created" | "exists"> {
  try {
    await db.$transaction(async (tx) => {
      const { escalateAfterSeconds, reviewers, ...fields } = run;
      await tx.run.create({
        data: {
          ...fields,
          state: "waiting",
          version: 1,
          escalateAfter: escalateAfterSeconds,
          reviewers: JSON.stringify(reviewers),
        },
      });
      await tx.packetVersion.create({ data: { runId: run.id, version: 1, digest: run.digest, packet: run.packet } });
    });
    return "created";
  } catch (error) {
    if (isUniqueViolation(error)) return "exists";
    throw error;
  }
}

/**
 * Saves a changed packet as the next version, if the run is still waiting at `fromVersion`: a new digest
 * and a new approval request. Decisions carrying the earlier version or digest are then `stale`.
 */
export async function saveNewPacket(
  db: Db,
  change: { runId: string; fromVersion: number; packet: string; digest: string; deadline?: Date },
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const version = change.fromVersion + 1;
    const written = await tx.run.updateMany({
      where: { id: change.runId, version: change.fromVersion, state: "waiting" },
      data: {
        version,
        digest: change.digest,
        packet: change.packet,
        ...(change.deadline ? { deadline: change.deadline } : {}),
      },
    });
    if (written.count !== 1) return false;
    await tx.packetVersion.create({
      data: { runId: change.runId, version, digest: change.digest, packet: change.packet },
    });
    return true;
  });
}

/** Runs still waiting, with their deadlines: the expiry schedule is rebuilt from these at start. */
export async function listWaitingDeadlines(db: Db): Promise<Array<{ id: string; deadline: Date }>> {
  const rows = await db.run.findMany({
    where: { state: "waiting", deadline: { not: null } },
    select: { id: true, deadline: true },
  });
  return rows.map((r) => ({ id: r.id, deadline: r.deadline! }));
}

export async function findFirstPacket(db: Db, runId: string): Promise<{ digest: string } | null> {
  return db.packetVersion.findUnique({ where: { runId_version: { runId, version: 1 } }, select: { digest: true } });
}

export interface WaitingRun {
  id: string;
  agentId: string;
  operation: string | null;
  version: number;
  deadline: Date | null;
  createdAt: Date;
}

/**
 * Runs waiting for a decision where the user is an assigned reviewer. `reviewers` is a JSON array column
 * (the schema is shared with SQLite), so the membership test happens here rather than in SQL.
 */
export async function listRunsAwaitingReviewer(db: Db, tenantId: string, userId: string): Promise<WaitingRun[]> {
  const rows = await db.run.findMany({ where: { tenantId, state: "waiting" }, orderBy: { createdAt: "asc" } });
  return rows
    .filter((row) => (JSON.parse(row.reviewers) as string[]).includes(userId))
    .map(({ id, agentId, operation, version, deadline, createdAt }) => ({
      id,
      agentId,
      operation,
      version,
      deadline,
      createdAt,
    }));
}

/** One stored packet version of a run (each version's packet is kept, so old cards can still be shown). */
const readPacketVersion = sqlText(
  () => `SELECT "packet", "digest" FROM "PacketVersion" WHERE "runId" = ? AND "version" = ?`,
);

export async function findPacketVersion(
  store: Store,
  runId: string,
  version: number,
): Promise<{ packet: string; digest: string } | null> {
  const [row] = await store.sql.read((d) =>
    rows<{ packet: string; digest: string }>(readPacketVersion(d), runId, version),
  );
  return row ?? null;
}

/** How many of an agent's runs wait for a decision (what a paused agent's ping counts). */
export async function countWaitingRuns(db: Db, agentId: string): Promise<number> {
  return db.run.count({ where: { agentId, state: "waiting" } });
}
