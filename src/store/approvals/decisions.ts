import type { AgentSettings } from "../../policy/agent-settings";
import type { Faults } from "../../policy/faults";
import type { Db, Store } from "../connection/client";
import { asDate, count, type Dialect, rows, type Step, sqlText } from "../connection/sql";
import { settingsFromText } from "../directory/directory";
import { insertOutboxRow, OUTBOX_ROW_WIDTH, outboxInsertFrom, outboxRowValues } from "../outbox/insert";
import type { PlannedDelivery } from "../outbox/types";
import { type RawRunRow, RUN_COLUMNS, type RunRecord, rawToRunRecord } from "./runs";

export interface StoredDecision {
  eventId: string;
  fingerprint: string;
  actorId: string | null;
  action: string;
  version: number;
  digest: string;
  result: string;
  at: Date;
}

type EventRow = NonNullable<Awaited<ReturnType<Db["decisionEvent"]["findUnique"]>>>;
const toStored = ({ runId: _run, tenantId: _t, agentId: _a, createdAt, ...row }: EventRow): StoredDecision => ({
  ...row,
  at: createdAt,
});

export async function findDecisionEvent(db: Db, runId: string, eventId: string): Promise<StoredDecision | null> {
  const row = await db.decisionEvent.findUnique({ where: { runId_eventId: { runId, eventId } } });
  return row ? toStored(row) : null;
}

/** The decision that moved the run out of `waiting`, if any (only winning decisions are recorded). */
export async function findDeciding(db: Db, runId: string): Promise<StoredDecision | null> {
  const row = await db.decisionEvent.findFirst({ where: { runId }, orderBy: { createdAt: "desc" } });
  return row ? toStored(row) : null;
}

/** What a decision is decided on, read in one statement: the run, this event id's earlier decision, the agent's settings. */
export interface DecisionFacts {
  run: RunRecord;
  recorded: StoredDecision | null;
  /** The run's agent's settings (the contract of an approved action's destination); null if the agent is gone. */
  agentSettings: AgentSettings | null;
  /**
   * The decision that moved a run out of `waiting`, with its actor's name: made on the version before the one
   * the run moved to (only winning decisions are recorded, and a run leaves `waiting` once).
   */
  deciding: { event: StoredDecision; actorName: string | null } | null;
}

/**
 * The facts' columns and joins after a `"Run" r` of the statement (the event id is the joins' one
 * parameter): the same read on its own (`findDecisionFacts`) and after a click's caller and button
 * (`findCallerAndButton`).
 */
export const FACTS_COLUMNS = `${RUN_COLUMNS("r")},
    e."fingerprint" AS "eFingerprint", e."actorId" AS "eActorId", e."action" AS "eAction", e."version" AS "eVersion",
    e."digest" AS "eDigest", e."result" AS "eResult", e."createdAt" AS "eAt", a."settings" AS "agentSettings",
    m."eventId" AS "mEventId", m."fingerprint" AS "mFingerprint", m."actorId" AS "mActorId", m."action" AS "mAction",
    m."version" AS "mVersion", m."digest" AS "mDigest", m."result" AS "mResult", m."createdAt" AS "mAt",
    mu."name" AS "mActorName"`;
/**
 * The decision that moved a decided run `r`, as `m`, and its actor, as `mu`: made on the version before the one
 * the run moved to (only winning decisions and expiries are recorded, and a run leaves `waiting` once).
 */
export const DECIDING_JOINS = `LEFT JOIN "DecisionEvent" m ON m."runId" = r."id" AND r."state" IN ('approved', 'denied', 'expired')
    AND m."version" = r."version" - 1
  LEFT JOIN "User" mu ON mu."id" = m."actorId"`;
export const FACTS_JOINS = `LEFT JOIN "DecisionEvent" e ON e."runId" = r."id" AND e."eventId" = ?
  LEFT JOIN "Agent" a ON a."id" = r."agentId"
  ${DECIDING_JOINS}`;

const readFacts = sqlText(() => `SELECT ${FACTS_COLUMNS} FROM "Run" r ${FACTS_JOINS} WHERE r."id" = ?`);

export type FactsRow = RawRunRow & {
  eFingerprint: string | null;
  eActorId: string | null;
  eAction: string;
  eVersion: number;
  eDigest: string;
  eResult: string;
  eAt: unknown;
  agentSettings: string | null;
  mEventId: string | null;
  mFingerprint: string;
  mActorId: string | null;
  mAction: string;
  mVersion: number;
  mDigest: string;
  mResult: string;
  mAt: unknown;
  mActorName: string | null;
};

/**
 * The run, the decision already recorded under `eventId` (a re-sent click), the agent's settings and, for a
 * decided run, the decision that moved it, in one statement: a decision's reads (and the note's of a click that
 * came too late), which were four or five round trips.
 */
export async function findDecisionFacts(store: Store, runId: string, eventId: string): Promise<DecisionFacts | null> {
  const [row] = await store.sql.read(function* (d) {
    return yield* rows<FactsRow>(readFacts(d), eventId, runId);
  });
  return row ? factsOf(row, eventId) : null;
}

/** A row of `FACTS_COLUMNS` as the facts. */
export function factsOf(row: FactsRow, eventId: string): DecisionFacts {
  return {
    run: rawToRunRecord(row),
    recorded:
      row.eFingerprint === null
        ? null
        : {
            eventId,
            fingerprint: row.eFingerprint,
            actorId: row.eActorId,
            action: row.eAction,
            version: Number(row.eVersion),
            digest: row.eDigest,
            result: row.eResult,
            at: asDate(row.eAt),
          },
    agentSettings: row.agentSettings === null ? null : settingsFromText(row.agentSettings),
    deciding:
      row.mEventId === null
        ? null
        : {
            event: {
              eventId: row.mEventId,
              fingerprint: row.mFingerprint,
              actorId: row.mActorId,
              action: row.mAction,
              version: Number(row.mVersion),
              digest: row.mDigest,
              result: row.mResult,
              at: asDate(row.mAt),
            },
            actorName: row.mActorName,
          },
  };
}

export interface DecisionCommit {
  runId: string;
  /** The run's tenant and agent, recorded on the event for the audit list. */
  tenantId: string;
  agentId: string;
  fromVersion: number;
  next: { state: string; version: number };
  event: Omit<StoredDecision, "at">;
  at: Date;
  /** Approve plans exactly one outbox row in the same transaction; deny and expire plan none. */
  outbox?: PlannedDelivery;
  /** Test-only: `before-approve-commit` is reached inside the transaction just before it commits. */
  faults?: Faults;
}

class LostRace extends Error {}

// The run moves only from `waiting` at the version the decision was made on: across processes the database
// decides which of two racing decisions wins, whatever either process believed.
const runMove = (d: Dialect) => `UPDATE "Run"
  SET "state" = ?, "version" = ?, "decidedBy" = ?, "decidedAt" = ${d.time}, "updatedAt" = ${d.time}
  WHERE "id" = ? AND "version" = ? AND "state" = 'waiting'`;
const eventInsert = (d: Dialect) => `INSERT INTO "DecisionEvent" ("runId", "tenantId", "agentId", "eventId",
    "fingerprint", "actorId", "action", "version", "digest", "result", "createdAt")
  SELECT ?, ?, ?, ?, ?, ?, ?, CAST(? AS INTEGER), ?, ?, ${d.time}`;
const moveRun = sqlText(runMove);
const recordEvent = sqlText((d) => `${eventInsert(d)} WHERE true ON CONFLICT DO NOTHING`);

/**
 * The same writes as one statement where the database can (`Dialect.writesInWith`), each only when the one
 * before it wrote: the event when the run moved, the outbox row when the event was recorded. The event has no
 * ON CONFLICT here: the same event id recorded first fails the whole statement, so the run's move is undone
 * with it (the transaction's `LostRace`).
 */
const decidedInOne = (d: Dialect, plan: string) => `WITH moved AS (${runMove(d)} RETURNING "id"),
  recorded AS (${eventInsert(d)} FROM moved RETURNING "runId")${plan}
  SELECT COUNT(*) AS "moved" FROM moved`;
const decideInOne = sqlText((d) => decidedInOne(d, ""));
const decideAndPlanInOne = sqlText((d) =>
  decidedInOne(d, `,\n  planned AS (${outboxInsertFrom(d, `${d.oneRow(OUTBOX_ROW_WIDTH)} CROSS JOIN recorded`)})`),
);

function* decideInOneStatement(d: Dialect, commit: DecisionCommit): Step<boolean> {
  const { event, at, outbox } = commit;
  const [written] = yield* rows<{ moved: unknown }>(
    outbox ? decideAndPlanInOne(d) : decideInOne(d),
    ...[commit.next.state, commit.next.version, event.actorId, at, at, commit.runId, commit.fromVersion],
    ...[commit.runId, commit.tenantId, commit.agentId, event.eventId, event.fingerprint, event.actorId],
    ...[event.action, event.version, event.digest, event.result, at],
    ...(outbox ? outboxRowValues({ row: { ...outbox, payload: JSON.stringify(outbox.payload) }, at }) : []),
  );
  return Number(written?.moved) === 1;
}

/** PostgreSQL's unique violation on the event: the same event id was recorded first by another decision. */
const eventRecordedFirst = (error: unknown): boolean =>
  (error as { code?: unknown }).code === "23505" && (error as { table?: unknown }).table === "DecisionEvent";

function* writeDecision(d: Dialect, commit: DecisionCommit): Step<boolean> {
  const { event, at } = commit;
  const moved = yield* count(
    moveRun(d),
    commit.next.state,
    commit.next.version,
    event.actorId,
    at,
    at,
    commit.runId,
    commit.fromVersion,
  );
  if (moved !== 1) return false;
  const recorded = yield* count(
    recordEvent(d),
    commit.runId,
    commit.tenantId,
    commit.agentId,
    event.eventId,
    event.fingerprint,
    event.actorId,
    event.action,
    event.version,
    event.digest,
    event.result,
    at,
  );
  // The same event id recorded first by another decision: the run's move is rolled back with this throw.
  if (recorded !== 1) throw new LostRace();
  if (commit.outbox)
    yield* insertOutboxRow(d, { ...commit.outbox, payload: JSON.stringify(commit.outbox.payload) }, at);
  commit.faults?.reach("before-approve-commit");
  return true;
}

/**
 * Writes a decision atomically with the store's own statements (SQLite: one transaction, prepared and
 * synchronous; PostgreSQL: one statement, one round trip, through the driver): the run moves on with a conditional update on (id, version, waiting), the
 * event is recorded and the outbox row planned. Returns false when another decision won the update (or
 * recorded the same event id first); then nothing of this one is written.
 */
export async function commitDecision(store: Store, commit: DecisionCommit): Promise<boolean> {
  try {
    if (!store.sql.dialect.writesInWith) return await store.sql.write((d) => writeDecision(d, commit));
    commit.faults?.reach("before-approve-commit");
    return await store.sql.statement((d) => decideInOneStatement(d, commit));
  } catch (error) {
    if (error instanceof LostRace || eventRecordedFirst(error)) return false;
    throw error;
  }
}
