import type { ControlRecord, ControlState, HoldLevel } from "../../policy/control";
import { type GateVerdict, gateVerdict } from "../../policy/gate";
import { agentScope, DEPLOYMENT_SCOPE, tenantScope } from "../../policy/ids";
import { NOT_RUNNING, sqlList } from "../../policy/states";
import { asDateOrNull, type Dialect, rows, type Step } from "../connection/sql";

/** A control record with where it sits: the one shape every reader of the Control table returns. */
export interface StoredControl extends ControlRecord {
  scope: string;
  tenantId: string;
  agentId: string | null;
  version: number;
  /** While DRAINING: when work still in flight is moved to NEEDS_REVIEW. */
  drainDeadline: Date | null;
}

/** A Control row as either Prisma or a raw statement returns it (DateTime as Date or as ISO text). */
export interface ControlRow {
  scope: string;
  tenantId: string;
  agentId: string | null;
  state: string;
  holdLevel: string;
  reason: string | null;
  setBy: string | null;
  setAt: Date | string | null;
  until: Date | string | null;
  version: number | bigint;
  drainDeadline: Date | string | null;
}

/** The one row mapper of the Control table. */
export const controlOf = (row: ControlRow): StoredControl => ({
  scope: row.scope,
  tenantId: row.tenantId,
  agentId: row.agentId,
  state: row.state as ControlState,
  holdLevel: row.holdLevel as HoldLevel,
  reason: row.reason,
  setBy: row.setBy,
  setAt: asDateOrNull(row.setAt),
  until: asDateOrNull(row.until),
  version: Number(row.version),
  drainDeadline: asDateOrNull(row.drainDeadline),
});

const COLUMNS = `"scope", "tenantId", "agentId", "state", "holdLevel", "reason", "setBy", "setAt", "until", "version", "drainDeadline"`;

export type Controls = Map<string, StoredControl>;

/**
 * The records of the given scopes, by scope: the gate's input, read inside the caller's step. `locked`: the
 * step acts on the verdict in the same transaction (see `Dialect.forShare`).
 */
export function* controlsStep(d: Dialect, scopes: Iterable<string>, locked = false): Step<Controls> {
  const found = yield* rows<ControlRow>(
    `SELECT ${COLUMNS} FROM "Control" WHERE "scope" IN ${d.list} ${locked ? d.forShare : ""}`,
    [...new Set(scopes)],
  );
  return new Map(found.map((row) => [row.scope, controlOf(row)]));
}

/** The states other than RUNNING, as a list the `state` index can seek (`<> 'RUNNING'` reads every record). */
const NOT_RUNNING_SQL = sqlList(NOT_RUNNING);

/** Every record that is not RUNNING (few: read after every delivery round and every reconcile tick). */
export function* notRunningStep(): Step<StoredControl[]> {
  const found = yield* rows<ControlRow>(`SELECT ${COLUMNS} FROM "Control" WHERE "state" IN ${NOT_RUNNING_SQL}`);
  return found.map(controlOf);
}

/** The scopes a gate reading needs for these agents. */
export const gateScopes = (items: Iterable<{ agentId: string; tenantId: string }>): string[] => [
  ...[...items].flatMap((i) => [agentScope(i.agentId), tenantScope(i.tenantId)]),
  DEPLOYMENT_SCOPE,
];

/**
 * The fail-closed pause gate (design.md section 4): the verdict for one agent from records already read. Every
 * worker asks this, whichever way it read the records.
 */
export const gateOf = (controls: Controls, agentId: string, tenantId: string): GateVerdict =>
  gateVerdict(controls.get(agentScope(agentId)), controls.get(tenantScope(tenantId)), controls.get(DEPLOYMENT_SCOPE));
