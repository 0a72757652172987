import crypto from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApprovalScheduling } from "../../src/bot/main/approvals-wiring";
import { createWaitingRun, declareDestinations } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.each(PROVIDERS)("expiry by the trusted scheduler (BullMQ delayed jobs) on %s", (provider) => {
  let h: Harness;
  const stops: Array<() => Promise<void>> = [];
  const prefix = `hf-test-${crypto.randomUUID()}`;
  beforeEach(async () => {
    h = await createHarness(provider);
    await declareDestinations(h, { [DESTINATION]: "none" });
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await h.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  const stateOf = async (id: string) =>
    (await h.ctx.store.db.run.findUniqueOrThrow({ where: { id: `acme:${id}` } })).state;

  it("expires a run at its deadline, and rebuilds the schedule from the database at start", async () => {
    // Created while no scheduler runs (as if Redis had lost the job): found again at start.
    await createWaitingRun(h, { id: "early", destination: DESTINATION, deadline: new Date(Date.now() + 600) });
    stops.push(await startApprovalScheduling(h.ctx, { url: REDIS_URL, prefix }));
    await createWaitingRun(h, { id: "later", destination: DESTINATION, deadline: new Date(Date.now() + 900) });
    const decided = await createWaitingRun(h, {
      id: "decided",
      destination: DESTINATION,
      deadline: new Date(Date.now() + 700),
    });
    const body = { eventId: "e", action: "deny", version: 1, digest: decided.digest };
    expect((await h.call("POST", "/v1/runs/decided/decisions", "rita", body)).json.result).toBe("denied");

    await waitFor(async () => (await stateOf("early")) === "expired" && (await stateOf("later")) === "expired");
    const expired = await h.ctx.store.db.run.findUniqueOrThrow({ where: { id: "acme:later" } });
    expect(expired.version).toBe(2);
    expect(await stateOf("decided")).toBe("denied");
    expect(await h.ctx.store.db.outboxItem.count()).toBe(0);
  });
});
