import { describe, expect, it } from "vitest";
import {
  managedAgents,
  manages,
  mayCancelPreflight,
  schedulerMayResume,
  seesDeliveryDetail,
  seesPacket,
  standingToward,
} from "./access";
import { RUNNING_CONTROL } from "./control";
import type { Standing } from "./roles";

const member: Standing = { isAdmin: false, agentRoles: [] };
const supervisor: Standing = { isAdmin: false, agentRoles: ["supervisor"] };
const reviewer: Standing = { isAdmin: false, agentRoles: ["reviewer"] };
const principal: Standing = { isAdmin: false, agentRoles: ["principal"] };
const admin: Standing = { isAdmin: true, agentRoles: [] };

describe("access rules", () => {
  it("the principal and admins manage an agent and see its deliveries' detail; nobody else", () => {
    expect([member, supervisor, reviewer, principal, admin].map(manages)).toEqual([false, false, false, true, true]);
    expect([member, supervisor, reviewer, principal, admin].map(seesDeliveryDetail)).toEqual(
      [member, supervisor, reviewer, principal, admin].map(manages),
    );
  });

  it("a packet is seen by the run's reviewers, those who manage its agent and the agent itself", () => {
    const run = { agentId: "acme:ops", reviewers: ["acme:rita"] };
    const user = (userId: string, standing: Standing) => ({ kind: "user" as const, userId, standing });
    expect(seesPacket(user("acme:rita", member), run)).toBe(true);
    expect(seesPacket(user("acme:alice", principal), run)).toBe(true);
    expect(seesPacket(user("acme:ada", admin), run)).toBe(true);
    expect(seesPacket(user("acme:mia", member), run)).toBe(false);
    expect(seesPacket(user("acme:sam", supervisor), run)).toBe(false);
    expect(seesPacket({ kind: "agent", agentId: "acme:ops" }, run)).toBe(true);
    expect(seesPacket({ kind: "agent", agentId: "acme:other" }, run)).toBe(false);
  });

  it("a tenant-wide standing answers for each agent, and as a list filter", () => {
    const alice = { isAdmin: false, principalOf: new Set(["acme:ops"]) };
    expect(manages(standingToward(alice, "acme:ops"))).toBe(true);
    expect(manages(standingToward(alice, "acme:other"))).toBe(false);
    expect(managedAgents(alice)).toEqual(new Set(["acme:ops"]));
    expect(managedAgents({ isAdmin: true, principalOf: new Set() })).toBe("all");
  });

  it("a preflight card is cancelled by the one who asked for it or an admin", () => {
    expect(mayCancelPreflight({ id: "acme:alice", isAdmin: false }, "acme:alice")).toBe(true);
    expect(mayCancelPreflight({ id: "acme:ada", isAdmin: true }, "acme:alice")).toBe(true);
    expect(mayCancelPreflight({ id: "acme:mia", isAdmin: false }, "acme:alice")).toBe(false);
  });

  it("the scheduler lifts only the pause it was scheduled for", () => {
    const until = new Date("2026-12-14T00:00:00Z");
    const paused = { ...RUNNING_CONTROL, state: "PAUSED" as const, until };
    expect(schedulerMayResume(paused, until)).toBe(true);
    expect(schedulerMayResume({ ...paused, until: new Date("2026-12-15T00:00:00Z") }, until)).toBe(false);
    expect(schedulerMayResume({ ...paused, until: null }, until)).toBe(false);
    expect(schedulerMayResume(RUNNING_CONTROL, until)).toBe(false);
    expect(schedulerMayResume(null, until)).toBe(false);
  });
});
