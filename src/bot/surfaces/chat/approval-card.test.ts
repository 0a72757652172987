import { describe, expect, it } from "vitest";
import { cardOutcome, outcomeFooter, packetSummary, shortDigest, timeLeft } from "./approval-card";

const now = new Date("2026-12-01T10:00:00Z");
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe("approval card words", () => {
  it("says the time left in its two largest units", () => {
    expect(timeLeft(at(2 * 3600 + 5 * 60 + 7), now)).toBe("2h 5m left");
    expect(timeLeft(at(3 * 86_400 + 3600), now)).toBe("3d 1h left");
    expect(timeLeft(at(86_400 + 30), now)).toBe("1d left");
    expect(timeLeft(at(40), now)).toBe("40s left");
    expect(timeLeft(at(0), now)).toBe("past");
  });

  it("summarises any packet: fields one per line, evidence apart, long values shortened", () => {
    const packet = { to: "x", amount: 5, evidence: ["a.pdf", { url: "u" }], long: "y".repeat(500) };
    const { summary, evidence } = packetSummary(JSON.stringify(packet));
    expect(summary.slice(0, 2)).toEqual(["to: x", "amount: 5"]);
    expect(summary[2]!.length).toBeLessThanOrEqual(126);
    expect(evidence).toEqual(["a.pdf", '{"url":"u"}']);
    expect(packetSummary("[1,2]")).toEqual({ summary: ["[1,2]"], evidence: [] });
  });

  it("shows a short digest; the full one stays in the button binding", () => {
    expect(shortDigest(`sha256:${"ab".repeat(32)}`)).toBe("sha256:abababababab…");
  });

  it("settles a card by what happened to the run since its version", () => {
    expect(cardOutcome({ state: "waiting", version: 2 }, 2, null)).toBeNull();
    expect(cardOutcome({ state: "waiting", version: 3 }, 2, null)).toBe("superseded");
    expect(cardOutcome({ state: "approved", version: 3 }, 2, 2)).toBe("approved");
    expect(cardOutcome({ state: "denied", version: 4 }, 2, 3)).toBe("superseded");
    expect(cardOutcome({ state: "expired", version: 2 }, 1, 1)).toBe("expired");
    expect(outcomeFooter("superseded", 3, null)).toMatch(/^Superseded by version 3/);
    expect(outcomeFooter("denied", 2, { by: "rita", at: now })).toBe("Denied by rita at 2026-12-01 10:00 UTC.");
  });
});
