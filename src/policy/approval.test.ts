import { describe, expect, it } from "vitest";
import { decide, decisionFingerprint, expire, type RunFacts } from "./approval";

const deadline = new Date("2026-12-01T12:00:00Z");
const before = new Date("2026-12-01T11:00:00Z");
const run: RunFacts = {
  tenantId: "acme",
  state: "waiting",
  version: 3,
  digest: "sha256:abc",
  deadline,
  reviewers: ["acme:rita"],
};
const rita = { id: "acme:rita", tenantId: "acme" };
const approve = { eventId: "e1", action: "approve" as const, version: 3, digest: "sha256:abc" };

describe("decide", () => {
  it("approves and denies to version + 1", () => {
    expect(decide(run, approve, rita, before, null)).toEqual({
      result: "approved",
      next: { state: "approved", version: 4 },
    });
    expect(decide(run, { ...approve, action: "deny" }, rita, before, null)).toMatchObject({ result: "denied" });
  });

  it("answers a replay by its fingerprint", () => {
    const recorded = { fingerprint: decisionFingerprint(approve, rita.id), result: "approved" as const };
    const after = { ...run, state: "approved", version: 4 };
    expect(decide(after, approve, rita, before, recorded)).toEqual({ result: "duplicate", recorded: "approved" });
    expect(decide(after, { ...approve, action: "deny" }, rita, before, recorded)).toEqual({ result: "conflict" });
    expect(decide(after, approve, { id: "acme:mia", tenantId: "acme" }, before, recorded).result).toBe("conflict");
  });

  it("checks version and digest before state, state before the actor, the actor before the deadline", () => {
    expect(decide(run, { ...approve, digest: "sha256:old" }, rita, before, null).result).toBe("stale");
    expect(decide(run, { ...approve, version: 2 }, rita, before, null).result).toBe("stale");
    expect(decide({ ...run, state: "approved" }, approve, rita, before, null).result).toBe("invalid_state");
    const mia = { id: "acme:mia", tenantId: "acme" };
    expect(decide(run, approve, mia, deadline, null)).toEqual({ result: "rejected", reason: "not_reviewer" });
    const gina = { id: "globex:gina", tenantId: "globex" };
    expect(decide(run, approve, gina, before, null)).toEqual({ result: "rejected", reason: "other_tenant" });
  });

  it("rejects a decision at or after the deadline, by the clock it is given", () => {
    expect(decide(run, approve, rita, deadline, null)).toEqual({ result: "rejected", reason: "deadline_passed" });
    expect(decide(run, approve, rita, new Date(deadline.getTime() - 1), null).result).toBe("approved");
  });
});

describe("answers that say what happened", () => {
  it("answers expired to a decision on an expired run, whatever version it names", () => {
    const expired = { ...run, state: "expired", version: 4 };
    expect(decide(expired, approve, rita, deadline, null)).toEqual({ result: "expired" });
    expect(decide(expired, { ...approve, version: 4 }, rita, deadline, null)).toEqual({ result: "expired" });
  });

  it("says why a decision is stale, with the run's current version", () => {
    expect(decide(run, { ...approve, version: 2 }, rita, before, null)).toEqual({
      result: "stale",
      reason: "version",
      currentVersion: 3,
    });
    expect(decide(run, { ...approve, digest: "sha256:old" }, rita, before, null)).toEqual({
      result: "stale",
      reason: "digest",
      currentVersion: 3,
    });
  });
});

describe("expire", () => {
  it("expires a waiting run at its deadline, and nothing else", () => {
    expect(expire(run, deadline)).toEqual({ result: "expired", next: { state: "expired", version: 4 } });
    expect(expire(run, before)).toEqual({ result: "not_due" });
    expect(expire({ ...run, state: "denied" }, deadline)).toEqual({ result: "invalid_state" });
  });
});
