import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acknowledge } from "../../src/bot/app/escalation/escalations";
import { findUserByIdentity } from "../../src/store/directory/directory";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import {
  ADA,
  BOB,
  createEscalationHarness,
  type EscalationHarness,
  endWait,
  KINDS,
  MIN,
  makeWait,
  pingsTo,
  RUN,
  TEST_ESCALATION,
  TITLE,
} from "../support/escalation-harness";

// Issue 15's proof, for each kind of stale wait, with an injected clock: pings are counted at naive
// recording platforms (slack and telegram), so a duplicate anywhere would show.
describe.each(PROVIDERS)("escalation monitor on %s", (provider) => {
  describe.each(KINDS)("a stale %s", (kind) => {
    const T0 = comingDay(8);
    let h: EscalationHarness;
    const title = TITLE[kind];
    const count = (to: { slack: string; telegram: string }) => ({
      slack: pingsTo(h.slack, to.slack, title).length,
      telegram: pingsTo(h.telegram, to.telegram, title).length,
    });
    const at = (minutes: number) => h.clock.set(new Date(T0.getTime() + minutes * MIN));

    beforeEach(async () => {
      h = await createEscalationHarness(provider, T0);
      await makeWait(h.db, kind, T0);
    });
    afterEach(async () => h.close());

    it("pings each level exactly once, across a restart and two processes ticking at once", async () => {
      const a = await h.start();
      const b = await h.start();
      at(5);
      await Promise.all([a.monitor.tick(), b.monitor.tick()]);
      expect(count(BOB)).toEqual({ slack: 0, telegram: 0 });
      at(11);
      await Promise.all([a.monitor.tick(), b.monitor.tick(), a.monitor.tick()]);
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
      await a.close();
      const restarted = await h.start();
      at(12);
      await Promise.all([restarted.monitor.tick(), b.monitor.tick()]);
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
      expect(count(ADA)).toEqual({ slack: 0, telegram: 0 });
      // Level 2, an hour after level 1's ping (its reminder at 41 min came first).
      at(41);
      await Promise.all([restarted.monitor.tick(), b.monitor.tick()]);
      expect(count(BOB)).toEqual({ slack: 2, telegram: 2 });
      at(71);
      await Promise.all([restarted.monitor.tick(), b.monitor.tick()]);
      at(72);
      await Promise.all([restarted.monitor.tick(), b.monitor.tick()]);
      expect(count(ADA)).toEqual({ slack: 1, telegram: 1 });
      expect(count(BOB)).toEqual({ slack: 2, telegram: 2 });
      const mine = await h.db.store.db.escalation.findFirstOrThrow({ where: { kind } });
      const ledger = await h.db.store.db.escalationStep.findMany({
        where: { escalationId: mine.id },
        orderBy: [{ level: "asc" }, { repeat: "asc" }],
      });
      expect(ledger.map((s) => [s.level, s.repeat])).toEqual([
        [1, 0],
        [1, 1],
        [2, 0],
      ]);
    });

    it("acknowledge stops the level's reminders; the next level still pings", async () => {
      const p = await h.start();
      at(11);
      await p.monitor.tick();
      const escalation = await h.db.store.db.escalation.findFirstOrThrow({ where: { kind } });
      const bob = (await findUserByIdentity(h.db.store.db, "telegram:7000005"))!;
      expect((await acknowledge(p.ctx, bob, escalation.id)).kind).toBe("acknowledged");
      at(45);
      await p.monitor.tick();
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
      expect(p.events).toContainEqual(["suppressed", "acknowledged"]);
      at(72);
      await p.monitor.tick();
      expect(count(ADA)).toEqual({ slack: 1, telegram: 1 });
      const after = await h.db.store.db.escalation.findUniqueOrThrow({ where: { id: escalation.id } });
      expect(after).toMatchObject({ state: "open", level: 2, acknowledgedBy: "acme:bob", ackLevel: 1 });
    });

    it("a resolve stops the escalation and edits every ping card, which loses its buttons", async () => {
      const p = await h.start();
      at(11);
      await p.monitor.tick();
      const posted = [...pingsTo(h.slack, BOB.slack, title), ...pingsTo(h.telegram, BOB.telegram, title)];
      expect(posted).toHaveLength(2);
      expect(posted[0]!.card.buttons.map((b) => b.label)).toEqual(
        kind === "approval" ? ["Acknowledge", "Take over"] : ["Acknowledge"],
      );
      at(20);
      await endWait(h.db, kind, h.clock.now);
      await p.monitor.tick();
      await p.monitor.tick();
      const edits = [...h.slack.edits, ...h.telegram.edits].filter((e) =>
        posted.some((x) => x.ref.messageId === e.ref.messageId),
      );
      expect(edits).toHaveLength(2);
      for (const edit of edits) {
        expect(edit.card.footer).toMatch(/^Resolved: /);
        expect(edit.card.buttons).toEqual([]);
        expect(edit.card.links).toEqual([]);
      }
      if (kind === "approval") expect(edits[0]!.card.footer).toMatch(/^Resolved: approved by rita at /);
      at(200);
      await p.monitor.tick();
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
      expect(count(ADA)).toEqual({ slack: 0, telegram: 0 });
      const row = await h.db.store.db.escalation.findFirstOrThrow({ where: { kind } });
      expect(row.state).toBe("resolved");
    });

    it("a deleted item stops too, and its cards say so", async () => {
      const p = await h.start();
      at(11);
      await p.monitor.tick();
      if (kind === "approval") await h.db.store.db.run.delete({ where: { id: RUN } });
      else if (kind === "paused") await h.db.store.db.run.deleteMany();
      else await h.db.store.db.outboxItem.deleteMany();
      at(12);
      await p.monitor.tick();
      const edits = [...h.slack.edits, ...h.telegram.edits].filter((e) => e.card.title.includes(title));
      expect(edits.map((e) => e.card.footer)).toEqual([
        expect.stringMatching(/^Resolved: /),
        expect.stringMatching(/^Resolved: /),
      ]);
      at(200);
      await p.monitor.tick();
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
    });

    it("quiet hours defer a due ping to the end of the window", async () => {
      // T0 is 08:00 UTC; level 1 falls due at 08:10, inside 08:05-08:30.
      await h.db.store.db.escalation.deleteMany();
      await h.configure({ ...TEST_ESCALATION, quietHours: { tz: "UTC", from: "08:05", to: "08:30" } });
      const p = await h.start();
      at(11);
      await p.monitor.tick();
      at(29);
      await p.monitor.tick();
      expect(count(BOB)).toEqual({ slack: 0, telegram: 0 });
      expect(p.events).toContainEqual(["suppressed", "quiet_hours"]);
      at(30);
      await p.monitor.tick();
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
    });

    it("a wait that went stale while no process ran escalates once one starts", async () => {
      // No monitor existed while the item went stale (and past level 2's delay): the first tick finds it.
      at(500);
      const p = await h.start();
      await p.monitor.tick();
      await p.monitor.tick();
      expect(count(BOB)).toEqual({ slack: 1, telegram: 1 });
      expect(count(ADA)).toEqual({ slack: 0, telegram: 0 });
    });
  });

  it("runs one pass at a time in a process: ticks asked for during a pass are one more pass after it", async () => {
    const h = await createEscalationHarness(provider, comingDay(8));
    try {
      await makeWait(h.db, "approval", h.clock.now);
      const p = await h.start();
      // Each pass reads the clock the same number of times: the reads count the passes.
      let reads = 0;
      const now = p.ctx.now;
      p.ctx.now = () => {
        reads++;
        return now();
      };
      await p.monitor.tick();
      const perPass = reads;
      reads = 0;
      // A burst of hints: ten ticks at once.
      await Promise.all(Array.from({ length: 10 }, () => p.monitor.tick()));
      expect(perPass).toBeGreaterThan(0);
      expect(reads).toBe(2 * perPass);
      // Each later tick still gets a pass of its own.
      reads = 0;
      await p.monitor.tick();
      expect(reads).toBe(perPass);
    } finally {
      await h.close();
    }
  });
});
