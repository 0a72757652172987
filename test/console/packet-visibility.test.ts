import { afterEach, describe, expect, it } from "vitest";
import { createRunForAgent } from "../../src/bot/app/approvals/create-run";
import { findRun } from "../../src/store/approvals/runs";
import { findAgent } from "../../src/store/directory/directory";
import { planDelivery } from "../../src/store/outbox/plan";
import { type ConsoleHarness, createConsoleHarness } from "../support/console-harness";
import { PROVIDERS } from "../support/databases";
import type { KEYS } from "../support/harness";

// The console's Approvals page shows a packet and its evidence to the same readers as `GET /v1/runs/:id`: the
// run's reviewers, its agent's principal and admins. Any other member of the tenant sees the run and its digest.
const PACKET_TEXT = "payroll-change-for-employee-4711";
const EVIDENCE_TEXT = "bank-letter-HR-7731.pdf";

describe.each(PROVIDERS)("who sees a packet on the console's Approvals page, on %s", (provider) => {
  let h: ConsoleHarness;
  afterEach(async () => h.close());

  async function waitingRun() {
    const agent = (await findAgent(h.ctx.store.db, "acme", "ops-agent"))!;
    const created = await createRunForAgent(h.ctx, {
      agent,
      id: "r-visibility",
      operation: "update-payroll",
      destination: "http://127.0.0.1:4000/actions",
      packet: { change: PACKET_TEXT, evidence: [EVIDENCE_TEXT] },
      reviewers: ["rita"],
      deadline: new Date(Date.now() + 3_600_000),
    });
    expect(created.kind).toBe("created");
  }

  const approvalsPageOf = async (user: keyof typeof KEYS) => {
    const browser = h.browser();
    await browser.signIn(user);
    const page = await browser.get("/approvals");
    expect(page.status).toBe(200);
    return page.body;
  };

  it("hides the packet and its evidence from a member who is neither reviewer nor principal", async () => {
    h = await createConsoleHarness(provider);
    await waitingRun();
    for (const member of ["mia", "sam"] as const) {
      const page = await approvalsPageOf(member);
      expect(page).toContain("update-payroll for ops-agent"); // the run itself is listed
      expect(page).not.toContain(PACKET_TEXT);
      expect(page).not.toContain(EVIDENCE_TEXT);
    }
  });

  it("follows the same rule on the Needs review page: the packet beside the item for readers, the digest for others", async () => {
    h = await createConsoleHarness(provider);
    await waitingRun();
    const run = (await findRun(h.ctx.store.db, "acme:r-visibility"))!;
    const key = `${run.id}:1:update-payroll`;
    const base = { kind: "action" as const, tenantId: "acme", agentId: "acme:ops-agent", contract: "none" };
    const item = { ...base, id: key, runId: run.id, digest: run.digest, destination: run.destination, payload: {} };
    await planDelivery(h.ctx.store, item, new Date());
    await h.ctx.store.db.outboxItem.update({
      where: { id: key },
      data: { state: "NEEDS_REVIEW", attempts: 1, lastAttemptAt: new Date(), lastResult: "no answer within 10000 ms" },
    });
    const reviewOf = async (user: keyof typeof KEYS) => {
      const browser = h.browser();
      await browser.signIn(user);
      const page = await browser.get("/review");
      expect(page.status).toBe(200);
      expect(page.body).toContain(key);
      return page.body;
    };
    for (const member of ["mia", "sam"] as const) {
      const page = await reviewOf(member);
      expect(page).toContain(run.digest);
      expect(page).not.toContain(PACKET_TEXT);
      expect(page).not.toContain(EVIDENCE_TEXT);
    }
    for (const reader of ["alice", "ada"] as const) {
      const page = await reviewOf(reader);
      expect(page).toContain(PACKET_TEXT);
      expect(page).toContain(EVIDENCE_TEXT);
    }
  });

  it("shows the packet and its evidence to the run's reviewer, the agent's principal and an admin", async () => {
    h = await createConsoleHarness(provider);
    await waitingRun();
    for (const reader of ["rita", "alice", "ada"] as const) {
      const page = await approvalsPageOf(reader);
      expect(page).toContain(PACKET_TEXT);
      expect(page).toContain(EVIDENCE_TEXT);
    }
  });
});
