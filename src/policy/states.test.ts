import { describe, expect, it } from "vitest";
import {
  INBOX_PUMPED,
  INBOX_WAITING,
  NOT_RUNNING,
  OUTBOX_SETTLED,
  OUTBOX_UNDELIVERED,
  OUTBOX_UNFINISHED,
  sqlList,
} from "./states";

describe("state sets", () => {
  it("splits the outbox states: every state is unfinished or settled, never both", () => {
    const all = ["PLANNED", "DISPATCHED", "ACKNOWLEDGED", "OBSERVED", "FAILED", "NEEDS_REVIEW", "ABANDONED"];
    expect([...OUTBOX_UNFINISHED, ...OUTBOX_SETTLED].sort()).toEqual([...all].sort());
    expect(OUTBOX_UNDELIVERED).toEqual(["PLANNED", "DISPATCHED", "FAILED"]);
  });

  it("names the waiting inbound events and the pump's work", () => {
    expect([...INBOX_WAITING].sort()).toEqual(["HELD", "PENDING", "RELEASED"]);
    expect([...INBOX_PUMPED].sort()).toEqual(["PENDING", "PLANNED", "RELEASED"]);
    expect(NOT_RUNNING).not.toContain("RUNNING");
  });

  it("spells a set as SQL text", () => {
    expect(sqlList(OUTBOX_UNFINISHED)).toBe("('PLANNED', 'DISPATCHED')");
  });
});
