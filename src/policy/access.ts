import type { ControlRecord } from "./control";
import type { Role, Standing } from "./roles";

// Who may see and do what (design.md section 3), one function per rule. Every surface and use case asks these,
// so the console, chat and the API cannot drift apart. Roles themselves are ranked in roles.ts.

/** The agent's principal and the tenant's admins manage an agent: its triggers, its inbound events, its effects. */
export const manages = (standing: Standing): boolean => standing.isAdmin || standing.agentRoles.includes("principal");

/** Only admins are tenant-wide, so only they pause or resume a whole tenant. */
export const mayControlTenant = (standing: Pick<Standing, "isAdmin">): boolean => standing.isAdmin;
/** Maintenance windows and the list of processes: admins only (a window can hold the whole deployment). */
export const mayRunMaintenance = (user: { isAdmin: boolean }): boolean => user.isAdmin;

/**
 * Whether a user sees the full `lastResult` of an agent's deliveries: those who manage the agent. Other
 * members, supervisors, reviewers and the agent's own key see the class of failure only.
 */
export const seesDeliveryDetail = (standing: Standing): boolean => manages(standing);

/** Who reads a run: its agent (by the agent's key) or a user of the tenant, with their standing toward the agent. */
export type RunReader = { kind: "agent"; agentId: string } | { kind: "user"; userId: string; standing: Standing };

/**
 * Whether a reader sees a run's packet and its evidence: its assigned reviewers (they decide on it), those who
 * manage its agent, and the agent itself (it wrote the packet). Other members and supervisors see the digest only.
 */
export function seesPacket(reader: RunReader, run: { agentId: string; reviewers: readonly string[] }): boolean {
  if (reader.kind === "agent") return reader.agentId === run.agentId;
  return run.reviewers.includes(reader.userId) || manages(reader.standing);
}

/**
 * Whether a user sees (and may acknowledge or take over) an escalation: the pings' targets, and those who
 * manage its agent.
 */
export const seesEscalation = (user: { id: string; standing: Standing }, escalation: { targets: readonly string[] }) =>
  escalation.targets.includes(user.id) || manages(user.standing);

/**
 * A user's standing toward every agent of the tenant at once, as lists need it: admin or not, and the agents
 * they are principal of. It answers `manages` and the rules built on it, not the supervisor or reviewer roles.
 */
export interface TenantStanding {
  isAdmin: boolean;
  principalOf: ReadonlySet<string>;
}

export const standingToward = (tenant: TenantStanding, agentId: string): Standing => ({
  isAdmin: tenant.isAdmin,
  agentRoles: tenant.principalOf.has(agentId) ? ["principal"] : [],
});

/** The agents whose work a user manages, as a list's filter: every agent of the tenant for an admin. */
export const managedAgents = (tenant: TenantStanding): "all" | ReadonlySet<string> =>
  tenant.isAdmin ? "all" : tenant.principalOf;

/** A resume's preflight card is cancelled by the person who asked for it, or by an admin. */
export const mayCancelPreflight = (user: { id: string; isAdmin: boolean }, requestedBy: string | null): boolean =>
  user.isAdmin || requestedBy === user.id;

/**
 * The trusted scheduler lifts only the pause it was scheduled for (`/pause ... until`): a pause lifted since,
 * or replaced by one with another `until`, is not its to lift.
 */
export const schedulerMayResume = (control: Pick<ControlRecord, "state" | "until"> | null, scheduledUntil: Date) =>
  !!control && control.state !== "RUNNING" && control.until?.getTime() === scheduledUntil.getTime();

/** "Resume anyway" past a failing resume check: the agent's principal or an admin, who may resume it at all. */
export const mayOverrideChecklist = (role: Role): boolean => role === "principal" || role === "admin";
