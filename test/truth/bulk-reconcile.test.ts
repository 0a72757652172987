import { afterEach, describe, expect, it } from "vitest";
import { planDelivery } from "../../src/store/outbox/plan";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const T0 = new Date("2026-12-01T09:00:00Z");
const A = "http://127.0.0.1:4000/a";
const B = "http://127.0.0.1:4000/b";

describe.each(PROVIDERS)("bulk reconcile on %s", (provider) => {
  let h: Harness;
  afterEach(() => h.close());

  /** An item that needed review, planned `hoursAgo` before T0. */
  const review = async (id: string, destination: string, hoursAgo: number, tenant = "acme", agent = "ops-agent") => {
    const db = h.ctx.store.db;
    await planDelivery(
      h.ctx.store,
      {
        id,
        kind: "action",
        tenantId: tenant,
        agentId: `${tenant}:${agent}`,
        destination,
        contract: "none",
        payload: {},
      },
      new Date(),
    );
    await db.outboxItem.update({
      where: { id },
      data: {
        state: "NEEDS_REVIEW",
        lastResult: "outcome unknown",
        createdAt: new Date(T0.getTime() - hoursAgo * 3_600_000),
      },
    });
  };
  const stateOf = async (id: string) => (await h.ctx.store.db.outboxItem.findUniqueOrThrow({ where: { id } })).state;

  it("settles every NEEDS_REVIEW item a filter matches, each audited, and nothing else", async () => {
    h = await createHarness(provider, () => T0);
    await review("old-a-1", A, 5);
    await review("old-a-2", A, 3);
    await review("new-a", A, 0.5);
    await review("old-b", B, 5);
    await review("globex-1", A, 5, "globex", "globex-agent");
    await planDelivery(
      h.ctx.store,
      {
        id: "planned-a",
        kind: "action",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        destination: A,
        contract: "none",
        payload: {},
      },
      new Date(),
    );

    const body = {
      filter: { agent: "ops-agent", destination: A, state: "NEEDS_REVIEW", olderThan: "2h" },
      resolution: "abandon",
      note: "receiver rebuilt; these never mattered",
    };
    expect((await h.call("POST", "/v1/outbox/reconcile", "mia", body)).json).toEqual({
      matched: 2,
      reconciled: [],
      skipped: [
        { key: "old-a-1", reason: "forbidden" },
        { key: "old-a-2", reason: "forbidden" },
      ],
    });
    const done = await h.call("POST", "/v1/outbox/reconcile", "alice", body);
    expect(done).toEqual({ status: 200, json: { matched: 2, reconciled: ["old-a-1", "old-a-2"], skipped: [] } });
    expect(await stateOf("old-a-1")).toBe("ABANDONED");
    expect(await stateOf("old-a-2")).toBe("ABANDONED");
    for (const untouched of ["new-a", "old-b", "globex-1"]) expect(await stateOf(untouched)).toBe("NEEDS_REVIEW");
    expect(await stateOf("planned-a")).toBe("PLANNED");
    const audit = await h.ctx.store.db.outboxReconcile.findMany({ orderBy: { itemId: "asc" } });
    expect(audit.map((a) => [a.itemId, a.actorId, a.resolution, a.fromState, a.toState])).toEqual([
      ["old-a-1", "acme:alice", "abandon", "NEEDS_REVIEW", "ABANDONED"],
      ["old-a-2", "acme:alice", "abandon", "NEEDS_REVIEW", "ABANDONED"],
    ]);

    const retried = await h.call("POST", "/v1/outbox/reconcile", "ada", {
      filter: { olderThan: "2026-12-01T08:00:00Z" },
      resolution: "retry",
      note: "receiver is back",
    });
    expect(retried.json).toEqual({ matched: 1, reconciled: ["old-b"], skipped: [] });
    expect(await stateOf("old-b")).toBe("PLANNED");
  });

  it("refuses a bad filter with a 400 and changes nothing", async () => {
    h = await createHarness(provider, () => T0);
    await review("x-1", A, 5);
    for (const filter of [{ state: "FAILED" }, { olderThan: "soon" }, { colour: "red" }]) {
      const res = await h.call("POST", "/v1/outbox/reconcile", "alice", { filter, resolution: "abandon", note: "n" });
      expect(res).toMatchObject({ status: 400, json: { error: "invalid_body" } });
    }
    expect(
      (await h.call("POST", "/v1/outbox/reconcile", "alice", { filter: {}, resolution: "explode", note: "n" })).status,
    ).toBe(400);
    const unknownAgent = await h.call("POST", "/v1/outbox/reconcile", "alice", {
      filter: { agent: "nope" },
      resolution: "abandon",
      note: "n",
    });
    expect(unknownAgent.status).toBe(404);
    expect(await stateOf("x-1")).toBe("NEEDS_REVIEW");
    expect(await h.ctx.store.db.outboxReconcile.count()).toBe(0);
  });
});
