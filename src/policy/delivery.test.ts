import { describe, expect, it } from "vitest";
import {
  afterFailedAttempt,
  afterUncertainOutcome,
  classifyResponse,
  DEFAULT_RETRY_POLICY,
  outcomeClass,
  parseContract,
  retryDelayMs,
} from "./delivery";

const hour = 3_600_000;
const sent = new Date("2026-11-30T00:00:00Z");
const at = (hours: number) => new Date(sent.getTime() + hours * hour);

describe("receiving contracts", () => {
  it("parses the three contract kinds", () => {
    expect(parseContract("none")).toEqual({ kind: "none" });
    expect(parseContract("key-retained 24h")).toEqual({ kind: "key-retained", retentionMs: 24 * hour });
    expect(parseContract("unique-external-id")).toEqual({ kind: "unique-external-id" });
    expect(parseContract("key-retained 24h lookup http://x/status")).toEqual({
      kind: "key-retained",
      retentionMs: 24 * hour,
      lookupUrl: "http://x/status",
    });
    expect(parseContract("none lookup")).toBeNull();
    expect(parseContract("key-retained forever")).toBeNull();
    expect(parseContract("sometimes")).toBeNull();
  });

  it.each([
    ["none", 1, "needs_review"],
    ["none", 25, "needs_review"],
    ["key-retained 24h", 1, "retry_same_key"],
    ["key-retained 24h", 23, "retry_same_key"],
    ["key-retained 24h", 25, "needs_review"],
    ["unique-external-id", 1, "retry_same_key"],
    ["unique-external-id", 25, "retry_same_key"],
    ["none lookup http://x/status", 1, "lookup"],
    ["key-retained 24h lookup http://x/status", 25, "lookup"],
  ] as const)("under %s, an uncertain outcome %ih after the first dispatch means %s", (text, hours, step) => {
    expect(afterUncertainOutcome(parseContract(text)!, sent, at(hours))).toBe(step);
  });
});

describe("retries", () => {
  it("backs off exponentially up to a cap", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, DEFAULT_RETRY_POLICY))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, DEFAULT_RETRY_POLICY)).toBe(DEFAULT_RETRY_POLICY.maxDelayMs);
  });

  it("classifies responses", () => {
    expect(classifyResponse(200).kind).toBe("acknowledged");
    expect(classifyResponse(503).kind).toBe("retryable");
    expect(classifyResponse(429).kind).toBe("retryable");
    expect(classifyResponse(400).kind).toBe("rejected");
  });
});

describe("delivery outcomes in three classes", () => {
  const policy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 };
  const now = new Date("2026-12-01T09:00:00Z");
  const fresh = (attempts: number) => ({ attempts, earlierUncertain: false });

  it("retries a request that was never sent as PLANNED with backoff, whatever the contract", () => {
    const refused = { kind: "not_sent" as const, error: "ECONNREFUSED" };
    expect(outcomeClass(refused)).toBe("not_sent");
    expect(afterFailedAttempt(refused, fresh(1), now, policy)).toEqual({
      step: "retry",
      state: "PLANNED",
      at: new Date(now.getTime() + 1_000),
    });
    expect(afterFailedAttempt(refused, fresh(2), now, policy)).toMatchObject({ at: new Date(now.getTime() + 2_000) });
    expect(afterFailedAttempt(refused, fresh(3), now, policy)).toEqual({ step: "settle", state: "FAILED" });
    const invalid = { kind: "not_sent" as const, error: "invalid destination URL", permanent: true };
    expect(afterFailedAttempt(invalid, fresh(1), now, policy)).toEqual({ step: "settle", state: "FAILED" });
  });

  it("leaves a sent request without an answer to the contract rule (DISPATCHED), and to review at the end", () => {
    const silent = { kind: "uncertain" as const, error: "no answer within 10000 ms" };
    expect(outcomeClass(silent)).toBe("no_answer");
    expect(afterFailedAttempt(silent, fresh(1), now, policy)).toMatchObject({ step: "retry", state: "DISPATCHED" });
    expect(afterFailedAttempt(silent, fresh(3), now, policy)).toEqual({ step: "settle", state: "NEEDS_REVIEW" });
  });

  it("reads an answer by its status, and keeps the doubt an earlier unanswered attempt left", () => {
    expect(outcomeClass(classifyResponse(503))).toBe("answered");
    expect(afterFailedAttempt({ kind: "retryable", status: 503 }, fresh(1), now, policy)).toMatchObject({
      state: "PLANNED",
    });
    expect(afterFailedAttempt({ kind: "rejected", status: 400 }, fresh(1), now, policy)).toEqual({
      step: "settle",
      state: "FAILED",
    });
    const doubted = { attempts: 2, earlierUncertain: true };
    const refused = { kind: "not_sent" as const, error: "ECONNREFUSED" };
    expect(afterFailedAttempt(refused, doubted, now, policy)).toMatchObject({ step: "retry", state: "DISPATCHED" });
    expect(afterFailedAttempt(refused, { ...doubted, attempts: 3 }, now, policy)).toEqual({
      step: "settle",
      state: "NEEDS_REVIEW",
    });
  });
});
