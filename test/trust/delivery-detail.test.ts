import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planDelivery } from "../../src/store/outbox/plan";
import { asAgent, createWaitingRun } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { createHarness, type DemoUser, type Harness } from "../support/harness";

const DETAIL = "connect ECONNREFUSED 10.0.0.7:6379 at 2026-12-01T10:00:00.000Z (attempt 8)";

describe.each(PROVIDERS)("delivery error details on %s", (provider) => {
  let h: Harness;
  let runId: string;
  beforeAll(async () => {
    h = await createHarness(provider);
    const run = await createWaitingRun(h, {
      id: "detail-r1",
      destination: "http://127.0.0.1:4000/actions",
      deadline: new Date(Date.now() + 3_600_000),
    });
    runId = run.id;
    await planDelivery(
      h.ctx.store,
      {
        id: "acme:detail-r1:2:send-invoice",
        kind: "action",
        tenantId: "acme",
        agentId: "acme:ops-agent",
        runId: "acme:detail-r1",
        destination: "http://127.0.0.1:4000/actions",
        contract: "key-retained 24h",
        payload: {},
      },
      new Date(),
    );
    await h.ctx.store.db.outboxItem.updateMany({ data: { state: "FAILED", attempts: 8, lastResult: DETAIL } });
  });
  afterAll(() => h.close());

  const listed = async (as: DemoUser) => (await h.call("GET", "/v1/outbox", as)).json.items[0].lastResult;

  it.each([
    ["alice", DETAIL], // the agent's principal
    ["ada", DETAIL], // an admin
    ["mia", "connection failed"], // a member
    ["sam", "connection failed"], // a supervisor
    ["rita", "connection failed"], // a reviewer
  ] as const)("GET /v1/outbox shows %s the result %s", async (user, shown) => {
    expect(await listed(user)).toBe(shown);
  });

  it("GET /v1/runs/:id shows the principal the detail, and members and the agent's own key the class", async () => {
    const view = async (as?: DemoUser) =>
      (as ? await h.call("GET", `/v1/runs/${runId}`, as) : await asAgent(h, "GET", `/v1/runs/${runId}`)).json.delivery
        ?.lastResult;
    expect(await view("alice")).toBe(DETAIL);
    expect(await view("mia")).toBe("connection failed");
    expect(await view()).toBe("connection failed");
  });
});
