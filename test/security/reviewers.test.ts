import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asAgent, declareDestinations } from "../support/approvals";
import { comingDay } from "../support/clock";
import { PROVIDERS } from "../support/databases";
import { createHarness, type Harness } from "../support/harness";

const DESTINATION = "http://127.0.0.1:4000/actions";

// The directory lists `reviewers: [rita]` for ops-agent; mia is a plain member of acme.
describe.each(PROVIDERS)("%s: a run's reviewers come from the directory", (provider) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(provider, () => comingDay(9));
    await declareDestinations(h, { [DESTINATION]: "none" });
  });
  afterEach(async () => h.close());

  const newRun = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    agent: "ops-agent",
    operation: "send-invoice",
    destination: DESTINATION,
    packet: { amount: 1 },
    deadline: comingDay(12).toISOString(),
    ...extra,
  });

  it("refuses a reviewer the agent's config does not list, naming the user, and stores nothing", async () => {
    const answer = await asAgent(h, "POST", "/v1/runs", newRun("r-mia", { reviewers: ["rita", "mia"] }));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_body", field: "reviewers" });
    expect(answer.json.message).toContain("mia");
    expect(await h.ctx.store.db.run.count()).toBe(0);
    // mia's approval therefore has nothing to approve.
    const decided = await h.call("POST", "/v1/runs/r-mia/decisions", "mia", {
      eventId: "e1",
      action: "approve",
      version: 1,
      digest: "sha256:x",
    });
    expect(decided.status).toBe(404);
    expect(await h.ctx.store.db.outboxItem.count()).toBe(0);
  });

  it("an admin or the principal is not a reviewer either unless listed", async () => {
    for (const who of ["ada", "alice"]) {
      const answer = await asAgent(h, "POST", "/v1/runs", newRun(`r-${who}`, { reviewers: [who] }));
      expect(answer).toMatchObject({ status: 400, json: { field: "reviewers" } });
    }
  });

  it("omitted, the reviewers are the configured list", async () => {
    const answer = await asAgent(h, "POST", "/v1/runs", newRun("r-default"));
    expect(answer.status).toBe(201);
    expect(answer.json.reviewers).toEqual(["rita"]);
    const narrowed = await asAgent(h, "POST", "/v1/runs", newRun("r-rita", { reviewers: ["rita"] }));
    expect(narrowed).toMatchObject({ status: 201, json: { reviewers: ["rita"] } });
  });
});
