import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planDelivery } from "../../src/store/outbox/plan";
import { PROVIDERS } from "../support/databases";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

describe.each(PROVIDERS)("a send the address rule refuses, on %s", (provider) => {
  let h: HeldHarness;
  beforeEach(async () => {
    h = await createHeldHarness(provider);
  });
  afterEach(() => h.close());

  it("fails at once, not retried, with the reason in lastResult, never connecting", async () => {
    // A row stored before the rule existed, aimed at the metadata service in another spelling.
    await planDelivery(
      h.ctx.store,
      {
        id: "acme:ops-agent:legacy:1",
        kind: "trigger",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        destination: "http://2852039166/latest/meta-data/",
        contract: "none",
        payload: {},
      },
      new Date(),
    );
    h.runtime.delivery.nudge();
    const item = await h.until(
      () => h.ctx.store.db.outboxItem.findUnique({ where: { id: "acme:ops-agent:legacy:1" } }),
      (row) => row?.state === "FAILED",
    );
    expect(item!.attempts).toBe(1);
    // The class first (as every failed attempt's), then the address and the rule.
    expect(item!.lastResult).toMatch(
      /^not sent: refused http:\/\/2852039166\/latest\/meta-data\/: link-local .* at \S+Z \(attempt 1\)$/,
    );
  });
});
