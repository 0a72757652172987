import crypto from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Retention, startRetention } from "../../src/queue/retention";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";
import { forgetPrefix, REDIS_URL } from "../support/held-harness";

const DAY = 86_400_000;
const NOW = new Date("2026-12-01T12:00:00Z");
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);
const AGENT = { tenantId: "acme", agentId: "acme:ops-agent" };

describe.each(PROVIDERS)("the retention prune on %s", (provider) => {
  let h: Harness;
  let retention: Retention;
  const logged: Array<Record<string, unknown>> = [];
  const prefix = `hf-ret-${crypto.randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    h = await createHarness(provider, () => NOW);
    const db = h.ctx.store.db;
    const item = (id: string, state: string, days: number) =>
      db.outboxItem.create({
        data: { id, kind: "trigger", ...AGENT, destination: "http://x/", payload: "{}", state, updatedAt: ago(days) },
      });
    for (const state of ["ACKNOWLEDGED", "OBSERVED", "FAILED", "ABANDONED", "PLANNED", "DISPATCHED", "NEEDS_REVIEW"]) {
      await item(`old-${state}`, state, 8);
      await item(`new-${state}`, state, 1);
    }
    await item("ancient-FAILED", "FAILED", 100);
    const occurrence = (id: string, state: string, outboxId: string | null, days: number) =>
      db.occurrence.create({
        data: { id, triggerId: "acme:ops-agent:t", ...AGENT, dueAt: ago(days), state, outboxId, updatedAt: ago(days) },
      });
    await occurrence("o-delivered", "PLANNED", "old-ACKNOWLEDGED", 8);
    await occurrence("o-released-delivered", "RELEASED", "old-OBSERVED", 8);
    await occurrence("o-pending", "PLANNED", "old-PLANNED", 8);
    await occurrence("o-review", "RELEASED", "old-NEEDS_REVIEW", 8);
    await occurrence("o-held", "HELD", null, 30);
    await occurrence("o-skipped", "SKIPPED", null, 8);
    await occurrence("o-skipped-new", "SKIPPED", null, 1);
    const event = (eventId: string, state: string, days: number) =>
      db.inboxEvent.create({
        data: { ...AGENT, eventId, fingerprint: "f", type: "t", payload: "{}", state, receivedAt: ago(days) },
      });
    await event("e-done", "DONE", 8);
    await event("e-done-new", "DONE", 1);
    await event("e-held", "HELD", 30);
    await event("e-pending", "PENDING", 30);
    await event("e-released", "RELEASED", 30);
    for (const [id, state] of [
      ["acme:waiting-run", "waiting"],
      ["acme:decided-run", "approved"],
    ]) {
      await db.run.create({ data: { id: id!, ...AGENT, state: state!, createdAt: ago(30) } });
    }
    const button = (id: string, action: string, runId: string | null, days: number) =>
      db.chatButton.create({
        data: { id, ...AGENT, action, payload: JSON.stringify(runId ? { runId } : {}), createdAt: ago(days) },
      });
    await button("b-live", "run.approve", "acme:waiting-run", 30);
    await button("b-decided", "run.deny", "acme:decided-run", 30);
    await button("b-resume", "resume.confirm", null, 8);
    await button("b-new", "resume.confirm", null, 1);
    const audit = (days: number) =>
      db.controlAudit.create({
        data: { scope: "agent:acme:ops-agent", tenantId: "acme", action: "pause", outcome: "paused", at: ago(days) },
      });
    await audit(100);
    await audit(8);
    await db.outboxReconcile.create({
      data: {
        itemId: "x",
        ...AGENT,
        actorId: "acme:alice",
        resolution: "abandon",
        note: "n",
        fromState: "NEEDS_REVIEW",
        toState: "ABANDONED",
        at: ago(100),
      },
    });

    const log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    retention = await startRetention({
      store: h.ctx.store,
      redisUrl: REDIS_URL,
      prefix,
      log,
      now: () => NOW,
      deliveredMs: 7 * DAY,
      auditMs: 90 * DAY,
      everyMs: 60 * 60_000,
    });
  });
  afterAll(async () => {
    await retention.close();
    await h.close();
    await forgetPrefix(REDIS_URL, prefix);
  });

  it("prunes finished work past its window, never anything pending, held or in review, and logs the counts", async () => {
    const db = h.ctx.store.db;
    // The scheduler's first run happens at once; wait for its log line rather than calling it ourselves.
    const deadline = Date.now() + 10_000;
    while (!logged.some((l) => l.msg === "retention prune") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const line = logged.find((l) => l.msg === "retention prune");
    expect(line).toMatchObject({
      outboxItems: 3, // old ACKNOWLEDGED and OBSERVED (7 d), ancient FAILED (90 d)
      occurrences: 3, // the two carried by those items, one old SKIPPED
      inboxEvents: 1,
      chatButtons: 2,
      controlAudit: 1,
      reconciliations: 1,
    });
    const ids = async () => (await db.outboxItem.findMany({ select: { id: true } })).map((r) => r.id).sort();
    expect(await ids()).toEqual(
      [
        "new-ACKNOWLEDGED",
        "new-OBSERVED",
        "new-FAILED",
        "new-ABANDONED",
        "new-PLANNED",
        "new-DISPATCHED",
        "new-NEEDS_REVIEW",
        "old-FAILED",
        "old-ABANDONED",
        "old-PLANNED",
        "old-DISPATCHED",
        "old-NEEDS_REVIEW",
      ].sort(),
    );
    expect((await db.occurrence.findMany({ select: { id: true } })).map((r) => r.id).sort()).toEqual(
      ["o-held", "o-pending", "o-review", "o-skipped-new"].sort(),
    );
    expect((await db.inboxEvent.findMany({ select: { eventId: true } })).map((r) => r.eventId).sort()).toEqual(
      ["e-done-new", "e-held", "e-pending", "e-released"].sort(),
    );
    expect((await db.chatButton.findMany({ select: { id: true } })).map((r) => r.id).sort()).toEqual([
      "b-live",
      "b-new",
    ]);
    expect(await db.controlAudit.count()).toBe(1);

    // A second prune finds nothing more.
    expect(await retention.pruneNow()).toEqual({
      outboxItems: 0,
      occurrences: 0,
      inboxEvents: 0,
      chatButtons: 0,
      controlAudit: 0,
      reconciliations: 0,
      escalations: 0,
    });
  });
});
