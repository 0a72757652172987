import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runKey } from "../../src/policy/ids";
import { commitDecision, type DecisionCommit } from "../../src/store/approvals/decisions";
import { findRun } from "../../src/store/approvals/runs";
import { openStore, type Store } from "../../src/store/connection/client";
import { createWaitingRun, declareDestinations, outboxCount } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";
const AT = new Date("2026-12-06T10:00:00.000Z");

/**
 * A decision's write (store/approvals/decisions.ts): the run's conditional move, the event and an approve's
 * outbox row, all or nothing. SQLite writes them in one transaction, PostgreSQL in one statement.
 */
describe.each(PROVIDERS)("a decision's write on %s", (provider) => {
  let h: Harness;
  let runId: string;
  let commit: (eventId: string, fromVersion?: number) => DecisionCommit;
  let statements: string[];
  /** A second store on the same database, whose statements are counted. */
  let counted: Store;
  beforeEach(async () => {
    statements = [];
    h = await createHarness(provider);
    counted = await openStore(h.db.url, { onStatement: (sql) => statements.push(sql) });
    await declareDestinations(h, { [DESTINATION]: "unique-external-id" });
    const run = await createWaitingRun(h, {
      id: "commit-1",
      destination: DESTINATION,
      deadline: new Date(Date.now() + 3_600_000),
    });
    runId = runKey("acme", run.id);
    commit = (eventId, fromVersion = run.version) => ({
      runId,
      tenantId: "acme",
      agentId: "acme:ops-agent",
      fromVersion,
      next: { state: "approved", version: fromVersion + 1 },
      event: {
        eventId,
        fingerprint: `fp-${eventId}`,
        actorId: null,
        action: "approve",
        version: fromVersion,
        digest: run.digest,
        result: "approved",
      },
      at: AT,
      outbox: {
        id: `acme:commit-1:${fromVersion}:pay`,
        kind: "action",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        runId,
        digest: run.digest,
        destination: DESTINATION,
        contract: "unique-external-id",
        payload: { amount: 1 },
      },
    });
  });
  afterEach(async () => {
    await counted.close();
    await h.close();
  });

  it("moves the run, records the event and plans the action together", async () => {
    expect(await commitDecision(counted, commit("click-1"))).toBe(true);
    if (provider === "postgresql") expect(statements).toHaveLength(1);
    const run = (await findRun(h.ctx.store.db, runId))!;
    expect({ state: run.state, version: run.version, decidedAt: run.decidedAt }).toEqual({
      state: "approved",
      version: 2,
      decidedAt: AT,
    });
    expect(await h.ctx.store.db.decisionEvent.count({ where: { runId } })).toBe(1);
    const [item] = await h.ctx.store.db.outboxItem.findMany({ where: { runId } });
    expect(item).toMatchObject({ state: "PLANNED", contract: "unique-external-id", payload: '{"amount":1}' });
    expect(item!.createdAt).toEqual(AT);
  });

  it("writes nothing when the run has moved on (a stale version)", async () => {
    expect(await commitDecision(h.ctx.store, commit("click-1", 7))).toBe(false);
    expect((await findRun(h.ctx.store.db, runId))!.state).toBe("waiting");
    expect(await h.ctx.store.db.decisionEvent.count({ where: { runId } })).toBe(0);
    expect(await outboxCount(h, runId)).toBe(0);
  });

  it("undoes the run's move when its event id was recorded first, and plans nothing", async () => {
    // Not reachable through decideRun (a recorded decision has moved its run for good); written here by hand
    // to show the move, the event and the outbox row stand or fall together.
    await h.ctx.store.db.decisionEvent.create({
      data: {
        runId,
        tenantId: "acme",
        agentId: "acme:ops-agent",
        eventId: "click-1",
        fingerprint: "earlier",
        actorId: null,
        action: "deny",
        version: 1,
        digest: "sha256:x",
        result: "denied",
      },
    });
    expect(await commitDecision(h.ctx.store, commit("click-1"))).toBe(false);
    expect((await findRun(h.ctx.store.db, runId))!).toMatchObject({ state: "waiting", version: 1 });
    expect(await h.ctx.store.db.decisionEvent.count({ where: { runId } })).toBe(1);
    expect(await outboxCount(h, runId)).toBe(0);
  });
});
