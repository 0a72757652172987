import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pruneFinished } from "../../src/store/lists/retention";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createEscalationHarness, type EscalationHarness, endWait, MIN, makeWait } from "../support/escalation-harness";

// Retention (design.md section 11): what is finished goes after its window, what still waits never does.
describe.each(PROVIDERS)("escalations under the retention prune on %s", (provider) => {
  const T0 = comingDay(8);
  let h: EscalationHarness;
  beforeEach(async () => {
    h = await createEscalationHarness(provider, T0);
    await makeWait(h.db, "approval", T0);
  });
  afterEach(async () => h.close());

  it("keeps an open escalation and its buttons past any window; prunes it once resolved", async () => {
    const { db } = h.db.store;
    const p = await h.start();
    h.clock.set(new Date(T0.getTime() + 11 * MIN));
    await p.monitor.tick();
    const everything = { deliveredBefore: new Date(T0.getTime() + 1e10), auditBefore: new Date(T0.getTime() + 1e10) };
    const buttons = () => db.chatButton.count({ where: { action: { startsWith: "escalation." } } });
    expect(await buttons()).toBe(2);
    expect((await pruneFinished(db, everything)).escalations).toBe(0);
    expect(await buttons()).toBe(2);
    expect(await db.escalation.count()).toBe(1);

    await endWait(h.db, "approval", h.clock.now);
    await p.monitor.tick();
    expect((await pruneFinished(db, everything)).escalations).toBe(1);
    expect(await buttons()).toBe(0);
    expect([await db.escalation.count(), await db.escalationStep.count(), await db.escalationCard.count()]).toEqual([
      0, 0, 0,
    ]);
    expect(await db.escalationItem.count()).toBe(0);
  });
});
