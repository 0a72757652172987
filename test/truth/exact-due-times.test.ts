import { afterEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

/**
 * Real BullMQ at short intervals: each delivery's dueAt is a slot of the documented grid, at or before the
 * moment the receiver saw it, never before the trigger was registered; the API's next and last due times
 * agree with what was delivered.
 */
describe.each(PROVIDERS)("exact due times on %s", (provider) => {
  let h: HeldHarness;
  afterEach(() => h.close());

  /** The receiver's /tick declared for the demo agent, with this minimum interval (the default is 1 s). */
  const setup = async (minIntervalMs = 1_000) => {
    h = await createHeldHarness(provider);
    await allowTriggerDestinations(h.ctx.store.db, "acme:ops-agent", [`${h.receiver.url}/tick`], "none", minIntervalMs);
  };

  const delivered = () =>
    h.receiver.calls
      .filter((c) => c.kind === "trigger")
      .map((c) => ({ dueAt: Date.parse((c.body as { dueAt: string }).dueAt), at: c.at }));

  it("fires an every trigger on the epoch's grid, each due time at or before its send", async () => {
    const every = 700; // not a divisor of a second: the grid is the epoch's, not the clock's seconds
    await setup(every); // the agent's limits allow this interval (the default minimum is 1 s)
    const registeredAt = Date.now();
    const created = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "grid",
      every,
      destination: `${h.receiver.url}/tick`,
    });
    expect(created.status).toBe(201);
    const nextDueAt = Date.parse(created.json.nextDueAt);
    expect(nextDueAt % every).toBe(0);
    expect(nextDueAt).toBeGreaterThan(registeredAt);
    await h.until(delivered, (d) => d.length >= 4, 10_000);
    const calls = delivered();
    expect(calls[0]!.dueAt).toBe(nextDueAt); // the first POST is the slot the API announced, not one at once
    for (const { dueAt, at } of calls) {
      expect(dueAt % every).toBe(0);
      expect(dueAt).toBeGreaterThan(registeredAt);
      expect(at).toBeGreaterThanOrEqual(dueAt);
      expect(at - dueAt).toBeLessThan(5_000); // late only by the load of the machine, never early
    }
    const listed = (await h.call("GET", "/v1/agents/ops-agent/triggers", "alice")).json.items[0];
    const now = Date.now();
    expect(Date.parse(listed.lastDueAt)).toBeLessThanOrEqual(now);
    expect(Date.parse(listed.nextDueAt)).toBeGreaterThan(now);
    expect(Date.parse(listed.nextDueAt) % every).toBe(0);
    expect(listed.anchor).toBe("1970-01-01T00:00:00.000Z");
  });

  it("fires on the caller's anchor, and moves a scheduler to a new anchor when the trigger is registered again", async () => {
    await setup();
    const every = 1000;
    const body = (anchor: string) => ({ key: "anchored", every, anchor, destination: `${h.receiver.url}/tick` });
    const created = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", body("2026-12-01T09:00:00.250Z"));
    expect(created.status).toBe(201);
    expect(created.json.anchor).toBe("1970-01-01T00:00:00.250Z");
    expect(Date.parse(created.json.nextDueAt) % every).toBe(250);
    await h.until(delivered, (d) => d.length >= 2, 10_000);
    for (const { dueAt, at } of delivered()) {
      expect(dueAt % every).toBe(250);
      expect(at).toBeGreaterThanOrEqual(dueAt);
    }
    const again = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", body("2026-12-01T09:00:00.750Z"));
    expect(again.status).toBe(201);
    expect(Date.parse(again.json.nextDueAt) % every).toBe(750);
    const before = delivered().length;
    await h.until(delivered, (d) => d.length >= before + 3, 10_000);
    const later = delivered().slice(before + 1); // one already planned on the old grid may still go
    for (const { dueAt, at } of later) {
      expect(dueAt % every).toBe(750);
      expect(at).toBeGreaterThanOrEqual(dueAt);
    }
  });

  it("fires a cron trigger with a time zone at its whole-second slots, each at or before its send", async () => {
    await setup();
    const registeredAt = Date.now();
    const created = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "cron",
      cron: "* * * * * *",
      tz: "Asia/Kolkata",
      destination: `${h.receiver.url}/tick`,
    });
    expect(created.status).toBe(201);
    expect(Date.parse(created.json.nextDueAt) % 1000).toBe(0);
    await h.until(delivered, (d) => d.length >= 2, 10_000);
    for (const { dueAt, at } of delivered()) {
      expect(dueAt % 1000).toBe(0);
      expect(dueAt).toBeGreaterThan(registeredAt);
      expect(at).toBeGreaterThanOrEqual(dueAt);
    }
    const listed = (await h.call("GET", "/v1/agents/ops-agent/triggers", "alice")).json.items[0];
    expect(Date.parse(listed.lastDueAt)).toBeLessThanOrEqual(Date.now());
  });
});
