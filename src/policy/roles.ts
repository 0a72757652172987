/** A user's standing toward one agent (design.md section 3). Reviewer is orthogonal and kept apart. */
export type Role = "member" | "supervisor" | "principal" | "admin";

const RANK: Record<Role, number> = { member: 1, supervisor: 2, principal: 3, admin: 4 };

export const roleRank = (role: Role): number => RANK[role];

/** What the directory knows about one user toward one agent. */
export interface Standing {
  isAdmin: boolean;
  agentRoles: ReadonlyArray<"principal" | "supervisor" | "reviewer">;
}

/** The strongest role a user holds toward an agent; every known user of the tenant is at least a member. */
export function effectiveRole(standing: Standing): Role {
  if (standing.isAdmin) return "admin";
  if (standing.agentRoles.includes("principal")) return "principal";
  if (standing.agentRoles.includes("supervisor")) return "supervisor";
  return "member";
}
