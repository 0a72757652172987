import { MONITOR_TICK_SETTING } from "../../policy/ids";
import type { Store } from "../connection/client";
import { isUniqueViolation } from "../connection/prisma-errors";

/** Records the monitor's tick time (any process's), for the metrics gauge and for operators. */
export async function recordMonitorTick(store: Store, at: Date): Promise<void> {
  const value = at.toISOString();
  const write = () =>
    store.db.deploymentSetting.upsert({
      where: { key: MONITOR_TICK_SETTING },
      create: { key: MONITOR_TICK_SETTING, value },
      update: { value },
    });
  // Two first ticks at once may both try the insert; the loser's retry is an update.
  await write().catch((error: unknown) => (isUniqueViolation(error) ? write() : Promise.reject(error)));
}

/** When any process's monitor last ticked; null before the first tick. Read at scrape time. */
export async function lastMonitorTickAt(store: Store): Promise<Date | null> {
  const row = await store.db.deploymentSetting.findUnique({ where: { key: MONITOR_TICK_SETTING } });
  return row ? new Date(row.value) : null;
}
