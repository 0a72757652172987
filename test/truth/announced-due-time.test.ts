import { afterEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../support/databases";
import { allowTriggerDestinations } from "../support/declared";
import { createHarness, type Harness } from "../support/harness";

/**
 * The next due time the API announces is the first slot after the registration itself, the moment stored as
 * the trigger's start: the catch-up records every slot after that moment, so an announcement computed from a
 * later reading of the clock (a slow database in between) would skip a slot that is then sent anyway.
 */
describe.each(PROVIDERS)("the announced due time on %s", (provider) => {
  let h: Harness;
  afterEach(() => h.close());

  it("announces the first slot after the stored registration time, however slowly the registration ran", async () => {
    let clock = Date.parse("2026-12-03T10:00:00.100Z");
    h = await createHarness(provider, () => {
      const now = new Date(clock);
      clock += 1_000; // every reading of the clock is a second later: a registration that takes its time
      return now;
    });
    await allowTriggerDestinations(h.db.store.db, "acme:ops-agent", ["https://hooks.example/tick"], "none");
    const created = await h.call("POST", "/v1/agents/ops-agent/triggers", "alice", {
      key: "slow",
      every: 1_000,
      destination: "https://hooks.example/tick",
    });
    expect(created.status).toBe(201);
    const stored = await h.db.store.db.trigger.findUniqueOrThrow({ where: { id: "acme:ops-agent:slow" } });
    const firstSlot = Math.floor(stored.createdAt.getTime() / 1_000) * 1_000 + 1_000;
    expect(Date.parse(created.json.nextDueAt)).toBe(firstSlot);
  });
});
