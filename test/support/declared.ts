import type { Db } from "../../src/store/connection/client";

/**
 * Declares destinations for an agent in its synced settings, as a directory file listing them would, and
 * lowers its minimum trigger interval for tests that tick every 200 ms (the default is 1 s).
 */
export async function allowTriggerDestinations(
  db: Db,
  agentId: string,
  urls: string[],
  contract = "none",
  minIntervalMs = 50,
): Promise<void> {
  const row = await db.agent.findUniqueOrThrow({ where: { id: agentId } });
  const settings = JSON.parse(row.settings) as Record<string, unknown>;
  const destinations = { ...(settings.destinations as Record<string, string>) };
  for (const url of urls) destinations[url] = contract;
  const limits = { maxTriggers: 1_000, ...(settings.limits as object), minIntervalMs };
  await db.agent.update({
    where: { id: agentId },
    data: { settings: JSON.stringify({ ...settings, destinations, limits }) },
  });
}
