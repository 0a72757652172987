import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

const AGENT = "acme:ops-agent";

describe.each(PROVIDERS)("held cadence triggers on %s", (provider) => {
  let h: HeldHarness;
  beforeEach(async () => {
    h = await createHeldHarness(provider);
  });
  afterEach(() => h.close());

  const register = async (key: string, misfire: string, extra: Record<string, unknown> = {}) => {
    await allowTriggerDestinations(h.ctx.store.db, AGENT, [`${h.receiver.url}/${key}`]);
    return h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key,
      every: 200,
      misfire,
      payload: { brief: key },
      destination: `${h.receiver.url}/${key}`,
      ...extra,
    });
  };
  const heldCount = async (key: string) =>
    h.ctx.store.db.occurrence.count({ where: { triggerId: `${AGENT}:${key}`, state: "HELD" } });
  const callsTo = (key: string) => h.receiver.calls.filter((c) => c.key.startsWith(`${AGENT}:${key}:`));

  it("delivers each occurrence once, keyed by the occurrence, while the agent runs", async () => {
    expect((await register("brief", "coalesce")).status).toBe(201);
    await h.until(
      () => callsTo("brief").length,
      (n) => n >= 3,
    );
    const keys = callsTo("brief").map((c) => c.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys[0]).toMatch(/^acme:ops-agent:brief:\d{4}-\d\d-\d\dT.*Z$/);
    expect(callsTo("brief")[0]!.body).toMatchObject({ trigger: "brief", payload: { brief: "brief" } });
    const item = await h.ctx.store.db.outboxItem.findUnique({ where: { id: keys[0]! } });
    expect(item).toMatchObject({ kind: "trigger", state: "ACKNOWLEDGED" });
  });

  it("holds while paused and releases once per misfire policy on resume; a second resume finds nothing", async () => {
    const paused = await h.call("POST", "/v1/agents/ops-agent/pause", "alice", { reason: "vacation" });
    expect(paused.json.state).toBe("PAUSED");
    for (const [key, misfire] of [
      ["co", "coalesce"],
      ["al", "all"],
      ["sk", "skip"],
    ] as const) {
      expect((await register(key, misfire)).status).toBe(201);
    }
    await h.until(
      async () => Math.min(await heldCount("co"), await heldCount("al"), await heldCount("sk")),
      (n) => n >= 3,
    );
    expect(h.receiver.calls).toHaveLength(0);

    const before = await h.ctx.store.db.outboxItem.count();
    const preflight = await h.call("POST", "/v1/agents/ops-agent/resume", "alice", { dryRun: true });
    expect(preflight.status).toBe(200);
    expect(preflight.json).toMatchObject({
      dryRun: true,
      allowed: true,
      requestedBy: { user: "alice", role: "principal" },
    });
    expect(preflight.json.held.occurrencesByTrigger.co).toBeGreaterThanOrEqual(3);
    expect(preflight.json.control.state).toBe("PAUSED");
    expect(await h.ctx.store.db.outboxItem.count()).toBe(before);
    const denied = await h.call("POST", "/v1/agents/ops-agent/resume", "sam", { dryRun: true });
    expect(denied.json).toMatchObject({ allowed: false, refusal: "forbidden" });

    // Resume twice at once: exactly one release. Triggers keep firing; only released rows are compared.
    const [first, second] = await Promise.all([
      h.call("POST", "/v1/agents/ops-agent/resume", "alice", {}),
      h.call("POST", "/v1/agents/ops-agent/resume", "ada", {}),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const release = await h.until(
      () => h.ctx.store.db.release.findFirst({ where: { agentId: AGENT, requestedBy: { not: "recovery" } } }),
      (r) => r?.state === "DONE",
    );
    const heldNow = await h.ctx.store.db.occurrence.findMany({
      where: { releaseId: release!.id },
      orderBy: { dueAt: "asc" },
    });
    const byTrigger = (key: string) => heldNow.filter((o) => o.triggerId === `${AGENT}:${key}`);

    const released = (key: string) => callsTo(key).filter((c) => (c.body as { released?: boolean }).released);
    const coalesced = await h.until(
      () => callsTo("co").filter((c) => c.key.includes(":release:")),
      (c) => c.length >= 1,
    );
    await h.until(
      () => released("al").length,
      (n) => n >= byTrigger("al").length,
    );
    await new Promise((r) => setTimeout(r, 300)); // nothing more may arrive
    expect(coalesced).toHaveLength(1);
    expect(coalesced[0]!.body).toMatchObject({
      missed: byTrigger("co").length,
      dueTimes: byTrigger("co").map((o) => o.dueAt.toISOString()),
      holdWindow: { from: expect.any(String), to: expect.any(String) },
    });
    expect(released("al").map((c) => c.key)).toEqual(byTrigger("al").map((o) => o.id));
    expect(byTrigger("sk").length).toBeGreaterThanOrEqual(3);
    expect(callsTo("sk").filter((c) => byTrigger("sk").some((o) => o.id === c.key))).toHaveLength(0);
    const skipped = await h.ctx.store.db.occurrence.count({ where: { triggerId: `${AGENT}:sk`, state: "SKIPPED" } });
    expect(skipped).toBe(byTrigger("sk").length);
    expect(release).toMatchObject({ state: "DONE", skipped: byTrigger("sk").length });
    expect(await h.ctx.store.db.release.count({ where: { requestedBy: { in: ["acme:alice", "acme:ada"] } } })).toBe(1);
    // Running the release again finds nothing to do.
    await h.runtime.jobs.release(release!.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(new Set(h.receiver.calls.map((c) => c.key)).size).toBe(h.receiver.calls.length);
  });
});
