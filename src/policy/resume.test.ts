import { describe, expect, it } from "vitest";
import { type ControlRecord, RUNNING_CONTROL } from "./control";
import { decideResume } from "./resume";
import type { Role } from "./roles";

const paused = (holdLevel: Role): ControlRecord => ({
  state: "PAUSED",
  holdLevel,
  reason: "r",
  setBy: "acme:someone",
  setAt: new Date(0),
  until: null,
});
const user = (role: Role) => ({ kind: "user" as const, actorId: `acme:${role}`, role });

// The role table of design.md section 3: who may resume an ordinary pause and an admin hold.
const table: Array<[Role, "ordinary" | "admin", string]> = [
  ["member", "ordinary", "forbidden"],
  ["member", "admin", "forbidden"],
  ["supervisor", "ordinary", "forbidden"],
  ["supervisor", "admin", "forbidden"],
  ["principal", "ordinary", "resumed"],
  ["principal", "admin", "creator_hold"],
  ["admin", "ordinary", "resumed"],
  ["admin", "admin", "resumed"],
];

describe("decideResume", () => {
  it.each(table)("a %s resuming an %s pause: %s", (role, hold, expected) => {
    for (const level of hold === "admin" ? (["admin"] as Role[]) : (["member", "supervisor", "principal"] as Role[])) {
      expect(decideResume(paused(level), user(role)).outcome).toBe(expected);
    }
  });

  it("refuses to resume a running agent", () => {
    expect(decideResume(RUNNING_CONTROL, user("admin")).outcome).toBe("not_paused");
  });

  it("lets the trusted scheduler resume any hold (a pause's until)", () => {
    expect(decideResume(paused("admin"), { kind: "scheduler" })).toEqual({ outcome: "resumed", next: RUNNING_CONTROL });
  });

  it("treats a draining agent as paused", () => {
    expect(decideResume({ ...paused("principal"), state: "DRAINING" }, user("principal")).outcome).toBe("resumed");
  });
});
