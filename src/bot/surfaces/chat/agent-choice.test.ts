import { describe, expect, test } from "vitest";
import { NO_SETTINGS } from "../../../policy/agent-settings";
import type { KnownAgent, KnownUser } from "../../app/records";
import { chooseAgent } from "./agent-choice";

const agent = (name: string, principalId: string | null = null): KnownAgent => ({
  id: `acme:${name}`,
  tenantId: "acme",
  name,
  principalId,
  secondaryManagerId: null,
  webhook: null,
  settings: NO_SETTINGS,
});
const alice: KnownUser = { id: "acme:alice", tenantId: "acme", name: "alice", isAdmin: false };

describe("chooseAgent", () => {
  test("a first word naming an agent picks it and is removed from the text", () => {
    const agents = [agent("ops"), agent("billing")];
    expect(chooseAgent(agents, alice, "billing vacation 2h")).toMatchObject({
      ok: true,
      agent: { name: "billing" },
      rest: "vacation 2h",
    });
  });

  test("the tenant's only agent needs no name", () => {
    expect(chooseAgent([agent("ops")], alice, "vacation")).toMatchObject({
      ok: true,
      agent: { name: "ops" },
      rest: "vacation",
    });
  });

  test("with several agents, the one the user owns", () => {
    const agents = [agent("ops"), agent("billing", "acme:alice")];
    expect(chooseAgent(agents, alice, "vacation")).toMatchObject({ ok: true, agent: { name: "billing" } });
  });

  test("otherwise the user must name one", () => {
    expect(chooseAgent([agent("ops"), agent("billing")], alice, "vacation")).toEqual({
      ok: false,
      code: "ambiguous_agent",
      choices: ["ops", "billing"],
    });
    expect(chooseAgent([], alice, "")).toEqual({ ok: false, code: "no_agent", choices: [] });
  });
});
