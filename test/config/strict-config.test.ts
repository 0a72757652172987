import { describe, expect, it } from "vitest";
import { parseDirectory } from "../../src/bot/main/config/directory-file";

const tenant = (extra: Record<string, unknown> = {}, agent: Record<string, unknown> = {}, user = {}) => ({
  tenants: {
    acme: {
      users: { alice: { ...user }, rita: {} },
      agents: { a: { principal: "alice", reviewers: ["rita"], ...agent } },
      ...extra,
    },
  },
});

describe("every level of the directory file is strict", () => {
  it.each<[string, unknown, string]>([
    ["a misspelled principal", tenant({}, { principle: "alice" }), "tenants.acme.agents.a.principle"],
    [
      "a misspelled review channel",
      tenant({}, { reviewChanel: { slack: "C1" } }),
      "tenants.acme.agents.a.reviewChanel",
    ],
    [
      "a field inside reviewChannel",
      tenant({}, { reviewChannel: { slak: "C1" } }),
      "tenants.acme.agents.a.reviewChannel.slak",
    ],
    ["a misspelled tenant field", tenant({ admin: ["alice"] }), "tenants.acme.admin"],
    ["a misspelled user field", tenant({}, {}, { telegramId: 1 }), "tenants.acme.users.alice.telegramId"],
    ["a field at the top", { ...tenant(), tenant: {} }, "tenant"],
  ])("%s stops the start, naming it", (_name, raw, field) => {
    expect(() => parseDirectory(raw, ".")).toThrow(`config: ${field}: unknown field (misspelled?)`);
  });

  it("the agent fields that are documented are accepted", () => {
    const agent = {
      supervisors: [],
      secondaryManager: "alice",
      webhook: "http://127.0.0.1:4000/agent",
      agentKey: "x".repeat(20),
      destinations: { "http://127.0.0.1:4000/actions": "none" },
      reviewChannel: { slack: "C0REVIEW", discord: "1100000000000000300", telegram: -100 },
      checkpoints: ["START"],
    };
    expect(() => parseDirectory(tenant({}, agent), ".")).not.toThrow();
  });
});
