import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expireRun } from "../../src/bot/app/approvals/expire-run";
import { runKey } from "../../src/policy/ids";
import { asAgent, createWaitingRun, declareDestinations, outboxCount } from "../support/approvals";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type DemoUser, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";
const T0 = comingDay(9);
const DEADLINE = comingDay(12);

// issue 4: every row starts from a run waiting at version 3 with a deadline.
describe.each(PROVIDERS)("the approval transition table on %s", (provider) => {
  let h: Harness;
  let clock: Date;
  let run: { id: string; version: number; digest: string };

  beforeEach(async () => {
    clock = T0;
    h = await createHarness(provider, () => clock);
    await declareDestinations(h, { [DESTINATION]: "key-retained 24h" });
    run = await createWaitingRun(h, { id: "run-42", destination: DESTINATION, deadline: DEADLINE, versions: 3 });
    expect(run).toMatchObject({ state: "waiting", version: 3 });
  });
  afterEach(async () => h.close());

  const decideAs = (user: DemoUser, body: Record<string, unknown>) =>
    h.call("POST", `/v1/runs/${run.id}/decisions`, user, {
      eventId: "click-1",
      action: "approve",
      version: run.version,
      digest: run.digest,
      ...body,
    });

  async function expectRow(result: string, state: string, version: number, outbox: number, answer?: any) {
    if (answer) {
      expect(answer.json.result).toBe(result);
      expect(answer.json.run).toMatchObject({ state, version });
    }
    const stored = await h.ctx.store.db.run.findUniqueOrThrow({ where: { id: runKey("acme", run.id) } });
    expect({ state: stored.state, version: stored.version }).toEqual({ state, version });
    expect(await outboxCount(h, runKey("acme", run.id))).toBe(outbox);
  }

  it("assigned reviewer approves before the deadline: approved, 4, one outbox row", async () => {
    const answer = await decideAs("rita", {});
    expect(answer.status).toBe(200);
    await expectRow("approved", "approved", 4, 1, answer);
    const item = await h.ctx.store.db.outboxItem.findFirstOrThrow({ where: { runId: runKey("acme", run.id) } });
    expect(item).toMatchObject({
      id: "acme:run-42:3:send-invoice",
      kind: "action",
      state: "PLANNED",
      digest: run.digest,
      contract: "key-retained 24h",
    });
    expect(answer.json.run.decision).toMatchObject({ eventId: "click-1", action: "approve", by: "rita" });
    expect(answer.json.run.delivery).toMatchObject({ key: "acme:run-42:3:send-invoice", state: "PLANNED" });
  });

  it("same event again: duplicate, approved 4, one outbox row", async () => {
    await decideAs("rita", {});
    const again = await decideAs("rita", {});
    expect(again.status).toBe(200);
    await expectRow("duplicate", "approved", 4, 1, again);
  });

  it("same event id, changed content: conflict, approved 4, one outbox row", async () => {
    await decideAs("rita", {});
    const changed = await decideAs("rita", { action: "deny" });
    expect(changed.status).toBe(409);
    await expectRow("conflict", "approved", 4, 1, changed);
  });

  it("assigned reviewer denies before the deadline: denied, 4, nothing queued", async () => {
    await expectRow("denied", "denied", 4, 0, await decideAs("rita", { action: "deny" }));
  });

  it("a user who is not an assigned reviewer approves: rejected, waiting 3, nothing", async () => {
    for (const user of ["mia", "alice", "ada"] as const) {
      const answer = await decideAs(user, { eventId: `click-${user}` });
      expect(answer.status).toBe(403);
      await expectRow("rejected", "waiting", 3, 0, answer);
    }
  });

  it("stale digest: stale, waiting 3, nothing", async () => {
    const answer = await decideAs("rita", { digest: `sha256:${"0".repeat(64)}` });
    expect(answer.status).toBe(409);
    await expectRow("stale", "waiting", 3, 0, answer);
    await expectRow("stale", "waiting", 3, 0, await decideAs("rita", { eventId: "click-2", version: 2 }));
  });

  it("approval exactly at the deadline: rejected, waiting 3, nothing", async () => {
    clock = DEADLINE;
    await expectRow("rejected", "waiting", 3, 0, await decideAs("rita", {}));
  });

  it("scheduler expiry at the deadline: expired, 4, nothing queued", async () => {
    clock = new Date(DEADLINE.getTime() - 1);
    expect(await expireRun(h.ctx, runKey("acme", run.id))).toBe("not_due");
    clock = DEADLINE;
    expect(await expireRun(h.ctx, runKey("acme", run.id))).toBe("expired");
    await expectRow("expired", "expired", 4, 0);
    expect(await expireRun(h.ctx, runKey("acme", run.id))).toBe("invalid_state");
    const view = await asAgent(h, "GET", `/v1/runs/${run.id}`);
    expect(view.json.decision).toMatchObject({ action: "expire", result: "expired", by: null });
  });

  it("a reviewer of another tenant: 404, waiting 3, nothing", async () => {
    const answer = await decideAs("gina", {});
    expect(answer).toMatchObject({ status: 404, json: { error: "not_found" } });
    await expectRow("", "waiting", 3, 0);
    expect(await h.ctx.store.db.decisionEvent.count()).toBe(0);
  });

  it("records nothing for a refused decision", async () => {
    await decideAs("mia", {});
    await decideAs("rita", { digest: "sha256:old" });
    expect(await h.ctx.store.db.decisionEvent.count()).toBe(0);
  });
});
