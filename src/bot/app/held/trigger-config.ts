import { allAgentsById } from "../../../store/directory/directory";
import { allTriggers, deleteTrigger, upsertTrigger } from "../../../store/held/triggers";
import { destinationContract } from "../approvals/destinations";
import type { HandlerContext } from "../context";

/**
 * Brings stored triggers in line with the directory the bot starts with, before any is scheduled: each
 * trigger's contract is its destination's entry in config again, and a trigger whose destination is no
 * longer declared for its agent (or one stored before destinations were checked) is removed, its held
 * occurrences recorded SKIPPED, as a DELETE would. Every address the bot sends to comes from its config.
 */
export async function alignTriggersWithConfig(ctx: HandlerContext): Promise<{ updated: number; removed: number }> {
  const { db } = ctx.store;
  // One read of the agents: looked up one by one, 10,000 agents were 10,000 reads at every start.
  const agents = await allAgentsById(db);
  let updated = 0;
  let removed = 0;
  for (const trigger of await allTriggers(db)) {
    const agent = agents.get(trigger.agentId);
    const contract = agent ? destinationContract(agent, trigger.destination) : undefined;
    if (contract === undefined) {
      if (await deleteTrigger(db, trigger.id)) removed++;
      ctx.log.warn(
        { trigger: trigger.id, destination: trigger.destination },
        "trigger removed: its destination is not declared for its agent",
      );
    } else if (contract !== trigger.contract) {
      await upsertTrigger(db, { ...trigger, contract }, trigger.createdAt);
      updated++;
    }
  }
  return { updated, removed };
}
