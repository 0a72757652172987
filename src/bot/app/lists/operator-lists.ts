import { z } from "zod";
import type { RunState } from "../../../policy/approval";
import { pageAnswer, readCursor } from "../../../policy/cursor";
import { agentNameOf, agentScope, runName, tenantScope } from "../../../policy/ids";
import type { RunRecord } from "../../../store/approvals/runs";
import type { Db } from "../../../store/connection/client";
import { readControls } from "../../../store/control/gate";
import { findAgent, type KnownUser } from "../../../store/directory/directory";
import { userNames } from "../../../store/directory/users";
import { countHeldWorkOf, type HeldCounts } from "../../../store/held/counts";
import { agentsPage } from "../../../store/lists/agents-page";
import { AUDIT_SOURCES, type AuditRow, auditPage } from "../../../store/lists/audit-page";
import { runsPage } from "../../../store/lists/runs-page";
import { isCheckpointRun } from "../approvals/run-view";
import type { HandlerContext } from "../context";
import { type ControlView, controlViewOf } from "../control/control-view";
import { heldAsSeen } from "../held/held-as-seen";

/**
 * The operator's lists (GET /v1/agents, /v1/runs, /v1/audit, and the web console): plain handlers over one
 * tenant. Each answers a keyset page `{ items, nextCursor }`, or why the request cannot be answered.
 */
export const RUN_STATES = ["waiting", "approved", "denied", "expired", "active", "completed"] as const;
export const DEFAULT_PAGE = 100;

export interface PageRequest {
  /** 1-500; default 100. */
  limit?: number;
  /** `nextCursor` of the previous page of the same list. */
  cursor?: string;
}
export interface RunsListFilter extends PageRequest {
  state?: (typeof RUN_STATES)[number];
  agent?: string;
  /** `me`: only runs the caller is an assigned reviewer of. */
  reviewer?: "me";
}
export interface AuditListFilter extends PageRequest {
  agent?: string;
  since?: Date;
}

export type ListResult<T> =
  | { kind: "page"; items: T[]; nextCursor: string | null }
  | { kind: "invalid" | "not_found"; field: "cursor" | "agent"; message: string };

export interface AgentListItem extends Omit<ControlView, "agent"> {
  name: string;
  tenantPaused: boolean;
  held: HeldCounts;
}

export interface RunListItem {
  id: string;
  agent: string;
  kind: "approval" | "checkpoint";
  state: string;
  operation: string | null;
  destination: string | null;
  version: number;
  digest: string | null;
  checkpoint: string | null;
  deadline: string | null;
  reviewers: string[];
  createdAt: string;
  updatedAt: string;
}

/** An audited act (docs/operator-api.md#audit). `id` is stable: `<source>:<the source's own key>`. */
export interface AuditEntry {
  id: string;
  at: string;
  source: AuditRow["source"];
  agent: string | null;
  actor: string | null;
  action: string;
  outcome: string;
  detail: AuditRow["detail"];
}

const AgentCursor = z.string().min(1).max(200);
const TimeKey = z.iso.datetime().transform((s) => new Date(s));
const RunCursor = z.object({ createdAt: TimeKey, id: z.string().max(300) }).strict();
const AuditCursor = z
  .object({
    at: TimeKey,
    source: z.enum(AUDIT_SOURCES),
    // Audit ids are autoincrement integers (32-bit on PostgreSQL); a larger one is not a cursor of ours.
    id: z.union([
      z
        .number()
        .int()
        .min(0)
        .max(2 ** 31 - 1),
      z.tuple([z.string().max(300), z.string().max(300)]),
    ]),
  })
  .strict();

const badCursor = { kind: "invalid", field: "cursor", message: "not a cursor from this list" } as const;
const agentName = (agentId: string | null) => (agentId ? agentNameOf(agentId) : null);
const iso = (d: Date | null) => d?.toISOString() ?? null;

export async function listAgents(
  ctx: HandlerContext,
  user: KnownUser,
  page: PageRequest = {},
): Promise<ListResult<AgentListItem>> {
  const cursor = readCursor(AgentCursor, page.cursor);
  if (!cursor.ok) return badCursor;
  const { db } = ctx.store;
  const found = await agentsPage(db, user.tenantId, { limit: page.limit ?? DEFAULT_PAGE, after: cursor.key });
  // A page costs the same few reads however many agents it holds: records, counts and names each at once.
  const ids = found.items.map((agent) => agent.id);
  const [controls, held] = await Promise.all([
    readControls(ctx.store, [tenantScope(user.tenantId), ...ids.map(agentScope)]),
    countHeldWorkOf(ctx.store, ids),
  ]);
  const setters = [...controls.values()].flatMap((c) => (c.setBy ? [c.setBy] : []));
  const names = await userNames(ctx.store, [...new Set(setters)]);
  const tenant = controls.get(tenantScope(user.tenantId)) ?? null;
  const items = found.items.map((agent): AgentListItem => {
    const record = controls.get(agentScope(agent.id))!;
    const setBy = record.setBy ? (names.get(record.setBy) ?? record.setBy) : null;
    const { agent: name, ...control } = controlViewOf(agent.name, record, tenant, setBy);
    return {
      name,
      ...control,
      tenantPaused: control.effective.by === "tenant",
      held: heldAsSeen(held.get(agent.id)!, control.effective.state !== "RUNNING"),
    };
  });
  return { kind: "page", ...pageAnswer(items, found.next) };
}

/** Where a filtered list's page starts, of which agent, and how long it is. */
interface OpenList<K> {
  after: K | undefined;
  agentId: string | undefined;
  limit: number;
}

/**
 * A filtered list: first what every one checks (the cursor is one of this list's, and an agent named in the
 * filter is one of the caller's tenant's; another tenant's is not found), then its own page.
 */
async function filteredList<K extends z.ZodType, T>(
  ctx: HandlerContext,
  user: KnownUser,
  cursorSchema: K,
  filter: PageRequest & { agent?: string },
  page: (db: Db, list: OpenList<z.infer<K>>) => Promise<{ items: T[]; next?: unknown }>,
): Promise<ListResult<T>> {
  const cursor = readCursor(cursorSchema, filter.cursor);
  if (!cursor.ok) return badCursor;
  const { db } = ctx.store;
  const agent = filter.agent === undefined ? undefined : await findAgent(db, user.tenantId, filter.agent);
  if (agent === null) return { kind: "not_found", field: "agent", message: `no agent '${filter.agent}'` };
  const found = await page(db, { after: cursor.key, agentId: agent?.id, limit: filter.limit ?? DEFAULT_PAGE });
  return { kind: "page", ...pageAnswer(found.items, found.next) };
}

export const listRuns = (ctx: HandlerContext, user: KnownUser, filter: RunsListFilter = {}) =>
  filteredList(ctx, user, RunCursor, filter, async (db, list) => {
    const found = await runsPage(db, user.tenantId, {
      ...list,
      state: filter.state as RunState | undefined,
      reviewerId: filter.reviewer === "me" ? user.id : undefined,
    });
    const names = await userNames(ctx.store, [...new Set(found.items.flatMap((run) => run.reviewers))]);
    return { items: found.items.map((run) => runListItem(run, names)), next: found.next };
  });

function runListItem(run: RunRecord, names: Map<string, string>): RunListItem {
  return {
    id: runName(run.tenantId, run.id),
    agent: agentName(run.agentId)!,
    kind: isCheckpointRun(run) ? "checkpoint" : "approval",
    state: run.state,
    operation: run.operation || null,
    destination: run.destination || null,
    version: run.version,
    digest: run.digest || null,
    checkpoint: run.checkpoint,
    deadline: iso(run.deadline),
    reviewers: run.reviewers.map((id) => names.get(id) ?? id),
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
  };
}

export const listAudit = (ctx: HandlerContext, user: KnownUser, filter: AuditListFilter = {}) =>
  filteredList(ctx, user, AuditCursor, filter, async (db, list) => {
    const found = await auditPage(db, user.tenantId, { ...list, since: filter.since });
    const actorIds = found.items.flatMap((row) => (row.actorId ? [row.actorId] : []));
    const actors = await userNames(ctx.store, [...new Set(actorIds)]);
    return { items: found.items.map((row) => auditEntry(user.tenantId, row, actors)), next: found.next };
  });

function auditEntry(tenantId: string, row: AuditRow, actors: Map<string, string>): AuditEntry {
  return {
    id: `${row.source}:${Array.isArray(row.id) ? `${runName(tenantId, row.id[0])}:${row.id[1]}` : row.id}`,
    at: row.at.toISOString(),
    source: row.source,
    agent: agentName(row.agentId),
    actor: row.actorId ? (actors.get(row.actorId) ?? row.actorId) : null,
    action: row.action,
    outcome: row.outcome,
    detail:
      row.source === "decision" ? { ...row.detail, runId: runName(tenantId, String(row.detail.runId)) } : row.detail,
  };
}
