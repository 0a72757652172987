import crypto from "node:crypto";
import { releaseLeaseName } from "../../policy/ids";
import { INBOX_WAITING } from "../../policy/states";
import type { Db, Store, Tx } from "../connection/client";
import { count, type Dialect, rows, rowsParam, rowTime, type Step, sqlText } from "../connection/sql";
import { checkGate, readGateControls } from "../control/gate";
import { gateOf } from "../control/records";
import { releaseStep } from "./release-step";

export { ReleaseRaceError } from "./release-step";

export interface ReleaseRequest {
  tenantId: string;
  /** null: a tenant-wide release (every agent of the tenant whose own gate is open). */
  agentId: string | null;
  requestedBy: string | null;
  heldSince: Date | null;
  now: Date;
}

/** Written in the same transaction as the resume (or the recovery) that causes it. */
export async function openRelease(tx: Tx, request: ReleaseRequest): Promise<string> {
  const id = crypto.randomUUID();
  await tx.release.create({
    data: {
      id,
      tenantId: request.tenantId,
      agentId: request.agentId,
      requestedBy: request.requestedBy,
      heldSince: request.heldSince,
      createdAt: request.now,
    },
  });
  return id;
}

/** How long after any release of an agent (or its tenant) held rows are not yet called orphans. */
const RECOVERY_GRACE_MS = 5_000;

/**
 * A release for held work found with its gate open and nobody releasing it (rows held while nothing ran,
 * or a tick's missed slots); null when the gate is shut or a release of this agent or its tenant is open or
 * just happened: that release takes the rows (a resume's own release goes on until no held row is left).
 * The gate is read first: seeing it open means the resume that opened it, and its release, are committed.
 */
export async function openRecoveryRelease(
  store: Store,
  agentId: string,
  tenantId: string,
  now: Date,
  /** Where the hold window of what it releases starts (the trigger's last recorded due time), if known. */
  heldSince: Date | null = null,
): Promise<string | null> {
  const [opened] = await openRecoveryReleasesWhereRunning(store, [{ agentId, tenantId, heldSince }], now);
  return opened ?? null;
}

/**
 * `openRecoveryRelease` for many agents: their gate read at once, then `openRecoveryReleases` for those running.
 * Fails closed: records that cannot be read hold every agent, whose rows then wait for a resume. Returns the ids
 * of the releases opened.
 */
export async function openRecoveryReleasesWhereRunning(
  store: Store,
  agents: readonly RecoveryWanted[],
  now: Date,
): Promise<string[]> {
  if (agents.length === 0) return [];
  const controls = await readGateControls(store, agents);
  const running = agents.filter((a) => !gateOf(controls, a.agentId, a.tenantId).held);
  return openRecoveryReleases(store, running, now);
}

/** An agent whose held rows want a recovery release, and where their hold window starts (null: not known). */
export interface RecoveryWanted {
  agentId: string;
  tenantId: string;
  heldSince: Date | null;
}

/** Releases of these tenants that are open or were made within the grace: they take the rows already. */
const RECENT_RELEASES = sqlText(
  (d) => `SELECT "tenantId", "agentId" FROM "Release"
  WHERE "tenantId" IN ${d.list} AND ("state" = 'OPEN' OR "createdAt" > ${d.time})`,
);
const INSERT_RECOVERY_RELEASES = sqlText(
  (
    d,
  ) => `INSERT INTO "Release" ("id", "tenantId", "agentId", "requestedBy", "heldSince", "state", "released", "skipped", "createdAt")
  SELECT r."c0", r."c1", r."c2", 'recovery', ${d.timeOf('r."c3"')}, 'OPEN', 0, 0, ${d.time}
  FROM ${d.rowsOf(4)} WHERE true`,
);

/**
 * `openRecoveryRelease` for many running agents at once (a start's catch-up, whose gate reading found them
 * open): one read of the releases that already take their rows, one insert of the rest, one release per agent.
 * With the start's catch-up one trigger and one release after another, a restart of 10,000 running agents
 * whose slots had passed served after 183 s; now 20 s (bench/release-memory.ts, RELEASE_MEMORY_RESTART).
 * Returns the ids of the releases opened.
 */
export async function openRecoveryReleases(
  store: Store,
  wanted: readonly RecoveryWanted[],
  now: Date,
): Promise<string[]> {
  if (wanted.length === 0) return [];
  return store.sql.write((d) => openRecoveryStep(d, wanted, now));
}

function* openRecoveryStep(d: Dialect, wanted: readonly RecoveryWanted[], now: Date): Step<string[]> {
  const tenants = [...new Set(wanted.map((w) => w.tenantId))];
  const graceStart = new Date(now.getTime() - RECOVERY_GRACE_MS);
  const taken = yield* rows<{ tenantId: string; agentId: string | null }>(RECENT_RELEASES(d), tenants, graceStart);
  const takenBy = new Set(taken.map((r) => `${r.tenantId}\n${r.agentId ?? ""}`));
  const opening = wanted
    .filter((w) => !takenBy.has(`${w.tenantId}\n`) && !takenBy.has(`${w.tenantId}\n${w.agentId}`))
    .map((w) => [crypto.randomUUID(), w.tenantId, w.agentId, rowTime(w.heldSince)] as const);
  if (opening.length === 0) return [];
  yield* count(INSERT_RECOVERY_RELEASES(d), now, rowsParam(opening));
  return opening.map(([id]) => id);
}

export type BatchOutcome =
  /** `gated`: agents whose own gate is still closed (paused themselves); their work waits for their resume. */
  | { kind: "batch"; released: number; skipped: number; planned: number; gated: string[] }
  /** Nothing left: held events were handed to their agents' ordered queues and the release is DONE. */
  | { kind: "finished"; eventAgents: string[]; closed?: { openedAt: Date } };

/** One step of the release loop (release-step.ts), and its finish once no held row is left. */
export async function releaseNextBatch(
  store: Store,
  releaseId: string,
  gated: Set<string>,
  triggersPerStep: number,
  now: Date,
): Promise<BatchOutcome> {
  const step = await store.sql.write((d) => releaseStep(d, releaseId, [...gated], triggersPerStep, now));
  if (step.kind === "batch") return step;
  return finish(store, releaseId, gated, now);
}

/** Held events of the release's scope go to their agents' ordered queues; then the release is DONE. */
async function finish(store: Store, releaseId: string, gated: Set<string>, now: Date): Promise<BatchOutcome> {
  const db: Db = store.db;
  const release = await db.release.findUnique({ where: { id: releaseId } });
  if (!release || release.state === "DONE") return { kind: "finished", eventAgents: [] };
  const scope = release.agentId ? { agentId: release.agentId } : {};
  const waiting = await db.inboxEvent.groupBy({
    by: ["agentId", "tenantId"],
    where: {
      AND: [scope, { tenantId: release.tenantId }, { agentId: { notIn: [...gated] } }],
      state: { in: INBOX_WAITING },
    },
  });
  const eventAgents: string[] = [];
  for (const { agentId, tenantId } of waiting) {
    if ((await checkGate(store, agentId, tenantId)).held) continue;
    await db.inboxEvent.updateMany({ where: { agentId, state: "HELD" }, data: { state: "RELEASED", releaseId } });
    eventAgents.push(agentId);
  }
  const closed = await db.release.updateMany({
    where: { id: releaseId, state: "OPEN" },
    data: { state: "DONE", finishedAt: now },
  });
  // `closed`: this call marked it DONE (once per release, however many holders finish it).
  return { kind: "finished", eventAgents, ...(closed.count === 1 ? { closed: { openedAt: release.createdAt } } : {}) };
}

/** Open releases that no process holds the lease of (its holder died, or it was never started). */
export async function unheldOpenReleases(store: Store, now: Date): Promise<string[]> {
  const open = await openReleaseIds(store.db);
  if (open.length === 0) return [];
  const held = await store.db.lease.findMany({
    where: { name: { in: open.map(releaseLeaseName) }, expiresAt: { gte: now } },
    select: { name: true },
  });
  const taken = new Set(held.map((l) => l.name));
  return open.filter((id) => !taken.has(releaseLeaseName(id)));
}

export async function openReleaseIds(db: Db): Promise<string[]> {
  return (
    await db.release.findMany({ where: { state: "OPEN" }, select: { id: true }, orderBy: { createdAt: "asc" } })
  ).map((r) => r.id);
}
