import { describe, expect, it } from "vitest";
import { type ControlRecord, RUNNING_CONTROL } from "./control";
import { decidePause } from "./pause";
import type { Role } from "./roles";

const now = new Date("2026-11-30T12:00:00Z");
const later = new Date("2026-11-30T13:00:00Z");
const pausedBy = (role: Role, reason = "first"): ControlRecord => ({
  state: "PAUSED",
  holdLevel: role,
  reason,
  setBy: `acme:${role}`,
  setAt: now,
  until: null,
});

describe("decidePause", () => {
  it.each<Role>(["member", "supervisor", "principal", "admin"])(
    "lets a %s pause a running agent at their own level",
    (role) => {
      const decision = decidePause(RUNNING_CONTROL, { actorId: "acme:x", role, reason: "vacation", until: null }, now);
      expect(decision.outcome).toBe("paused");
      expect(decision.next).toMatchObject({
        state: "DRAINING",
        holdLevel: role,
        reason: "vacation",
        setBy: "acme:x",
        setAt: now,
      });
    },
  );

  it("keeps the higher hold and the first reason when a lower role pauses again", () => {
    const current = pausedBy("admin", "incident");
    const decision = decidePause(
      current,
      { actorId: "acme:mia", role: "member", reason: "me too", until: null },
      later,
    );
    expect(decision).toEqual({ outcome: "kept", next: current });
  });

  it("keeps an equal hold untouched", () => {
    const current = pausedBy("principal");
    expect(
      decidePause(current, { actorId: "acme:p2", role: "principal", reason: "again", until: null }, later).outcome,
    ).toBe("kept");
  });

  it("raises the hold when a higher role pauses, and the hold becomes theirs", () => {
    const decision = decidePause(
      pausedBy("member"),
      { actorId: "acme:ada", role: "admin", reason: "incident", until: later },
      later,
    );
    expect(decision.outcome).toBe("raised");
    expect(decision.next).toMatchObject({ holdLevel: "admin", reason: "incident", setBy: "acme:ada", until: later });
  });

  it("stores until for a later automatic resume", () => {
    const decision = decidePause(
      RUNNING_CONTROL,
      { actorId: "acme:alice", role: "principal", reason: "vacation", until: later },
      now,
    );
    expect(decision.next.until).toEqual(later);
  });
});
