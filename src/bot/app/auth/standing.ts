import type { TenantStanding } from "../../../policy/access";
import type { Store } from "../../../store/connection/client";
import type { KnownUser } from "../../../store/directory/directory";
import { agentsLedBy } from "../../../store/directory/users";

/** What the access rules (policy/access.ts) need to know of a user toward every agent: one read, none for admins. */
export async function tenantStandingOf(store: Store, user: KnownUser): Promise<TenantStanding> {
  return { isAdmin: user.isAdmin, principalOf: user.isAdmin ? new Set() : await agentsLedBy(store, user.id) };
}
