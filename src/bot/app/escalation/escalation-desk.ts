import { findAgentById } from "../../../store/directory/directory";
import { findEscalation } from "../../../store/escalations/records";
import type { HandlerContext } from "../context";
import type { KnownUser } from "../records";
import { type EscalationView, listEscalations } from "./escalations";
import { type ItemFacts, itemFacts } from "./item-facts";

/** One escalation as the console's Escalations page shows it: the list's view and its item's facts now. */
export interface EscalationDeskItem {
  view: EscalationView;
  /** Null when the item is gone since (the next monitor tick resolves the escalation). */
  facts: ItemFacts | null;
  /** Take over applies to approvals that still wait. */
  canTakeOver: boolean;
}

/**
 * What is escalating to this person (open and acknowledged, newest first: the same list, and the same
 * visibility, as `/escalations` in chat and `GET /v1/escalations`), each with what its ping says.
 */
export async function escalationDesk(ctx: HandlerContext, user: KnownUser): Promise<EscalationDeskItem[]> {
  const { db } = ctx.store;
  const page = await listEscalations(ctx, user, { states: ["open", "acknowledged"], limit: 100 });
  const out: EscalationDeskItem[] = [];
  for (const view of page.items) {
    const stored = await findEscalation(db, view.id);
    const agent = stored && (await findAgentById(db, stored.agentId));
    const facts = stored && agent ? await itemFacts(ctx.store, stored, agent) : null;
    out.push({ view, facts, canTakeOver: view.kind === "approval" && view.state !== "resolved" && facts !== null });
  }
  return out;
}
