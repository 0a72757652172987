import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planDelivery } from "../../src/store/outbox/plan";
import { asAgent, createWaitingRun } from "../support/approvals";
import { PROVIDERS } from "../support/databases";
import { createHarness, type DemoUser, type Harness } from "../support/harness";
import { createHeldHarness, type HeldHarness } from "../support/held-harness";

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

// The classes read from what the delivery loop itself writes (class words first, policy/delivery.ts), not
// from a hand-written result: a refused address and a 4xx answer, through a real send.
describe.each(PROVIDERS)("delivery result classes from real sends on %s", (provider) => {
  let h: HeldHarness;
  beforeAll(async () => {
    h = await createHeldHarness(provider);
    h.receiver.behave = () => ({ kind: "status", status: 404 });
  });
  afterAll(() => h.close());

  it.each([
    ["http://2852039166/latest/meta-data/", "address refused", /^not sent: refused http:\/\/2852039166\//],
    ["<receiver>/gone", "HTTP 404", /^answered: HTTP 404 at /],
  ] as const)("a send to %s shows members %s and the principal the full result", async (to, shown, full) => {
    const id = `acme:ops-agent:classes:${shown}`;
    const destination = to.replace("<receiver>", h.receiver.url);
    const item = {
      id,
      kind: "trigger" as const,
      tenantId: "acme",
      agentId: "acme:ops-agent",
      contract: "none",
      payload: {},
    };
    await planDelivery(h.ctx.store, { ...item, destination }, new Date());
    h.runtime.delivery.nudge();
    await h.until(
      () => h.ctx.store.db.outboxItem.findUnique({ where: { id } }),
      (row) => row?.state === "FAILED",
    );
    const result = async (as: DemoUser) =>
      (await h.call("GET", "/v1/outbox?state=FAILED", as)).json.items.find((i: { key: string }) => i.key === id)
        .lastResult;
    expect(await result("mia")).toBe(shown);
    expect(await result("rita")).toBe(shown);
    expect(await result("alice")).toMatch(full);
  });
});
