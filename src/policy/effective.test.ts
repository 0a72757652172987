import { describe, expect, it } from "vitest";
import { RUNNING_CONTROL } from "./control";
import { effectiveControl } from "./effective";

const paused = (holdLevel: "principal" | "admin") => ({ ...RUNNING_CONTROL, state: "PAUSED" as const, holdLevel });

describe("the effective state", () => {
  it("is the tenant-wide hold while the tenant is not running, whatever the agent's own record says", () => {
    expect(effectiveControl(RUNNING_CONTROL, paused("admin"))).toEqual({
      state: "PAUSED",
      holdLevel: "admin",
      by: "tenant",
    });
    expect(effectiveControl(paused("principal"), paused("admin")).by).toBe("tenant");
    const draining = { ...RUNNING_CONTROL, state: "DRAINING" as const, holdLevel: "admin" as const };
    expect(effectiveControl(RUNNING_CONTROL, draining)).toEqual({
      state: "DRAINING",
      holdLevel: "admin",
      by: "tenant",
    });
  });

  it("is the agent's own record while the tenant runs", () => {
    expect(effectiveControl(paused("principal"), RUNNING_CONTROL)).toEqual({
      state: "PAUSED",
      holdLevel: "principal",
      by: "agent",
    });
    expect(effectiveControl(RUNNING_CONTROL, null)).toEqual({ state: "RUNNING", holdLevel: "none", by: "agent" });
  });
});
