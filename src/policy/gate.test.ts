import { describe, expect, it } from "vitest";
import { mayControlTenant } from "./access";
import { type ControlRecord, RUNNING_CONTROL } from "./control";
import { gateVerdict } from "./gate";
import { effectiveRole } from "./roles";

const paused: ControlRecord = { ...RUNNING_CONTROL, state: "PAUSED", holdLevel: "member" };

describe("gateVerdict", () => {
  it("lets work start only when agent and tenant are both running", () => {
    expect(gateVerdict(RUNNING_CONTROL, RUNNING_CONTROL)).toEqual({ held: false });
  });
  it("holds when the agent, or its tenant, is paused or draining", () => {
    expect(gateVerdict(paused, RUNNING_CONTROL)).toEqual({ held: true, because: "agent_paused" });
    expect(gateVerdict({ ...paused, state: "DRAINING" }, RUNNING_CONTROL).held).toBe(true);
    expect(gateVerdict(RUNNING_CONTROL, paused)).toEqual({ held: true, because: "tenant_paused" });
  });
  it("fails closed when a record is missing", () => {
    expect(gateVerdict(undefined, RUNNING_CONTROL)).toEqual({ held: true, because: "unreadable" });
    expect(gateVerdict(RUNNING_CONTROL, undefined)).toEqual({ held: true, because: "unreadable" });
  });
});

describe("effectiveRole", () => {
  it("ranks admin over principal over supervisor over member; a reviewer alone is a member", () => {
    expect(effectiveRole({ isAdmin: true, agentRoles: [] })).toBe("admin");
    expect(effectiveRole({ isAdmin: false, agentRoles: ["supervisor", "principal"] })).toBe("principal");
    expect(effectiveRole({ isAdmin: false, agentRoles: ["supervisor"] })).toBe("supervisor");
    expect(effectiveRole({ isAdmin: false, agentRoles: ["reviewer"] })).toBe("member");
  });
  it("lets only admins control a whole tenant", () => {
    expect(mayControlTenant({ isAdmin: true })).toBe(true);
    expect(mayControlTenant({ isAdmin: false })).toBe(false);
  });
});
