import { managedAgents, seesEscalation, standingToward } from "../../../policy/access";
import type { EscalationState } from "../../../policy/escalation";
import { runName } from "../../../policy/ids";
import { findChatButton } from "../../../store/chat/buttons";
import type { KnownUser } from "../../../store/directory/directory";
import { findAgentById } from "../../../store/directory/directory";
import { userNames } from "../../../store/directory/users";
import { listPostedPingPlaces } from "../../../store/escalations/cards";
import { acknowledgeEscalation } from "../../../store/escalations/ledger";
import { type EscalationKey, escalationPage } from "../../../store/escalations/page";
import { findEscalation, listSteps, type StoredEscalation } from "../../../store/escalations/records";
import { assignTakeOver } from "../../../store/escalations/take-over";
import type { Page } from "../../../store/lists/pages";
import { tenantStandingOf } from "../auth/standing";
import type { HandlerContext } from "../context";

/** What a ping that reached no chat platform says, in the log, the API and the console. */
export const NO_PLATFORM_WORDS = "no chat platform: shown in the console only";

/** One ping (a step of an escalation): when, to whom, and where its cards were posted. */
export interface PingView {
  level: number;
  repeat: number;
  sentAt: Date;
  /** Who it went to (names). */
  notified: string[];
  /** The chat places its cards were posted to; empty when it reached no platform (see NO_PLATFORM_WORDS). */
  postedTo: Array<{ platform: string; channelId: string }>;
}

/** An escalation as the API and `/escalations` show it. */
export interface EscalationView {
  id: string;
  kind: StoredEscalation["kind"];
  /** The run id (as the API names it), the agent's name, or the action key. */
  subject: string;
  agent: string;
  state: EscalationState;
  level: number;
  /** Who the current level's pings went to (names). */
  notified: string[];
  since: Date;
  sentAt: Date | null;
  acknowledgedBy: string | null;
  acknowledgedAt: Date | null;
  resolvedAt: Date | null;
  resolution: string | null;
  /** Every ping sent so far, oldest first. */
  pings: PingView[];
}

/**
 * Who sees (and may acknowledge or take over) an escalation: the tenant's admins see all of its
 * escalations; anyone else those that name them as a target and those of agents they are principal of.
 * Anything else, like another tenant's, is not found.
 */
async function visibleTo(ctx: HandlerContext, user: KnownUser, e: StoredEscalation): Promise<boolean> {
  if (e.tenantId !== user.tenantId) return false;
  const standing = standingToward(await tenantStandingOf(ctx.store, user), e.agentId);
  return seesEscalation({ id: user.id, standing }, e);
}

async function views(ctx: HandlerContext, list: StoredEscalation[]): Promise<EscalationView[]> {
  const { db } = ctx.store;
  const steps = await listSteps(
    db,
    list.map((e) => e.id),
  );
  const ids = new Set(
    list.flatMap((e) => [...(steps.get(e.id) ?? []).flatMap((s) => s.notified), e.acknowledgedBy ?? ""]),
  );
  const names = await userNames(ctx.store, [...ids].filter(Boolean));
  const places = await listPostedPingPlaces(
    db,
    list.map((e) => e.id),
  );
  const name = (id: string) => names.get(id) ?? id;
  const out: EscalationView[] = [];
  for (const e of list) {
    const agent = await findAgentById(db, e.agentId);
    const current = (steps.get(e.id) ?? []).filter((s) => s.level === e.level).at(-1);
    out.push({
      id: e.id,
      kind: e.kind,
      subject:
        e.kind === "approval"
          ? runName(e.tenantId, e.subject)
          : e.kind === "paused"
            ? (agent?.name ?? e.subject)
            : e.subject,
      agent: agent?.name ?? e.agentId,
      state: e.state,
      level: e.level,
      notified: (current?.notified ?? []).map(name),
      since: e.since,
      sentAt: e.lastSentAt,
      acknowledgedBy: e.acknowledgedBy && name(e.acknowledgedBy),
      acknowledgedAt: e.acknowledgedAt,
      resolvedAt: e.resolvedAt,
      resolution: e.resolution,
      pings: (steps.get(e.id) ?? []).map((s) => ({
        level: s.level,
        repeat: s.repeat,
        sentAt: s.sentAt,
        notified: s.notified.map(name),
        postedTo: places.get(e.id)?.get(`${s.level}.${s.repeat}`) ?? [],
      })),
    });
  }
  return out;
}

export async function listEscalations(
  ctx: HandlerContext,
  user: KnownUser,
  filter: { states: readonly EscalationState[]; limit: number; after?: EscalationKey },
): Promise<Page<EscalationView, EscalationKey>> {
  const managed = managedAgents(await tenantStandingOf(ctx.store, user));
  const visible = managed === "all" ? null : { userId: user.id, agentIds: [...managed] };
  const page = await escalationPage(ctx.store.db, user.tenantId, { ...filter, visibleTo: visible });
  return { items: await views(ctx, page.items), next: page.next };
}

export type AckResult =
  | { kind: "acknowledged" | "already" | "resolved"; escalation: EscalationView }
  | { kind: "not_found" };

/** The one acknowledge, for chat, the API and the console: repeats of the current level stop. */
export async function acknowledge(ctx: HandlerContext, user: KnownUser, id: string): Promise<AckResult> {
  const { db } = ctx.store;
  const found = await findEscalation(db, id);
  if (!found || !(await visibleTo(ctx, user, found))) return { kind: "not_found" };
  const outcome = await acknowledgeEscalation(db, id, user.id, ctx.now());
  if (outcome === "not_found") return { kind: "not_found" };
  const [escalation] = await views(ctx, [(await findEscalation(db, id))!]);
  return { kind: outcome, escalation: escalation! };
}

export type TakeOverResult =
  | { kind: "assigned" | "already_reviewer"; runId: string; version: number }
  | { kind: "not_found" | "not_approval" | "not_waiting" };

/**
 * Take over (approvals only): the clicker becomes an assigned reviewer of the version that escalated,
 * audited; `run.changed` then lets the card sync send them the approval card as to any reviewer.
 */
export async function takeOver(ctx: HandlerContext, user: KnownUser, id: string): Promise<TakeOverResult> {
  const found = await findEscalation(ctx.store.db, id);
  if (!found || !(await visibleTo(ctx, user, found))) return { kind: "not_found" };
  if (found.kind !== "approval") return { kind: "not_approval" };
  if (found.state === "resolved") return { kind: "not_waiting" };
  const outcome = await assignTakeOver(ctx.store.db, {
    runId: found.subject,
    version: found.itemVersion,
    agentId: found.agentId,
    tenantId: found.tenantId,
    userId: user.id,
    escalationId: found.id,
  });
  if (outcome === "not_waiting") return { kind: "not_waiting" };
  if (outcome === "assigned") ctx.events.emit("run.changed", found.subject);
  return { kind: outcome, runId: runName(found.tenantId, found.subject), version: found.itemVersion };
}

/**
 * The escalation a ping's button names, when `user` may click it for `action`; null for a made-up token, a
 * button of another action, and another tenant's button (as unknown as a made-up one).
 */
export async function escalationOfButton(
  ctx: HandlerContext,
  user: KnownUser,
  token: string,
  action: string,
): Promise<string | null> {
  const button = await findChatButton(ctx.store, token);
  const id = button?.payload.escalationId;
  if (!button || button.tenantId !== user.tenantId || button.action !== action || typeof id !== "string") return null;
  return id;
}
