import crypto from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { scheduleTrigger } from "../../src/queue/held/schedules";
import type { StoredTrigger } from "../../src/store/held/triggers";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";

const prefix = `hf-first-${crypto.randomUUID().slice(0, 8)}`;
const queue = new Queue("triggers", { connection: { url: REDIS_URL }, prefix });
afterAll(async () => {
  await queue.close();
  await forgetPrefix(REDIS_URL, prefix);
});

const trigger = (key: string, createdAt: Date, lastDueAt: Date | null = null): StoredTrigger => ({
  id: `acme:ops-agent:${key}`,
  tenantId: "acme",
  agentId: "acme:ops-agent",
  key,
  everyMs: 1_000,
  anchorOffsetMs: 0,
  cron: null,
  tz: null,
  payload: null,
  destination: "https://hooks.example/tick",
  misfire: "all",
  contract: "none",
  lastDueAt,
  createdAt,
});

/** The jobs waiting or delayed for the trigger, as the due time each one names. */
async function dueTimes(triggerId: string): Promise<number[]> {
  const jobs = await queue.getJobs(["waiting", "delayed", "prioritized"]);
  return jobs
    .filter((job) => job.data.triggerId === triggerId)
    .map((job) => job.data.dueAt ?? Number(job.id!.split(":").pop()))
    .sort((a, b) => a - b);
}

describe("a new trigger's first slots", () => {
  it("fires every slot after the registration, also those that passed before its scheduler was upserted", async () => {
    const now = Date.now();
    const registeredAt = new Date(now - 2_500); // a registration whose scheduler came 2.5 s late
    const late = trigger("late", registeredAt);
    await scheduleTrigger(queue, late);
    await scheduleTrigger(queue, late); // upserted again (a rebuild): still one job per slot
    const times = await dueTimes(late.id);
    const firstSlot = Math.floor(registeredAt.getTime() / 1_000) * 1_000 + 1_000;
    expect(times[0]).toBe(firstSlot);
    expect(times.length).toBeGreaterThanOrEqual(3);
    expect(times).toEqual(times.map((_, i) => firstSlot + i * 1_000)); // unbroken, none twice
  });

  it("leaves a trigger that already ticked to its scheduler alone", async () => {
    const now = Date.now();
    const ticked = trigger("ticked", new Date(now - 60_000), new Date(now - 30_000));
    await scheduleTrigger(queue, ticked);
    const times = await dueTimes(ticked.id);
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThan(now);
  });
});
