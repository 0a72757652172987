import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  agentScope,
  type IdentityParts,
  identityKey,
  parseIdentity,
  parseScope,
  runKey,
  runName,
  tenantScope,
  triggerId,
  triggerKeyOf,
} from "./ids";

/** Platform ids, tenant names and user names as the directory allows them: no ':'. */
const word = fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/);

describe("ids", () => {
  it("spells identity keys as the Identity rows hold them", () => {
    expect(identityKey({ platform: "slack", workspaceId: "T0ACME", userId: "U0ADA" })).toBe("slack:T0ACME:U0ADA");
    expect(identityKey({ platform: "discord", workspaceId: "g1", userId: "u1" })).toBe("discord:g1:u1");
    expect(identityKey({ platform: "telegram", userId: "7000001" })).toBe("telegram:7000001");
    expect(identityKey({ platform: "web", workspaceId: "acme", userId: "ada" })).toBe("web:acme:ada");
  });

  it("parses every identity key back to its parts", () => {
    const identity = fc.oneof(
      fc.record({ platform: fc.constant("telegram" as const), userId: word }),
      fc.record({
        platform: fc.constantFrom("slack" as const, "discord" as const, "web" as const),
        workspaceId: word,
        userId: word,
      }),
    );
    fc.assert(
      fc.property(identity, (parts: IdentityParts) => {
        expect(parseIdentity(identityKey(parts))).toEqual(parts);
      }),
    );
  });

  it("refuses what is not an identity key", () => {
    for (const key of ["", "slack", "slack:T1", "slack:T1:", "telegram:", "telegram:1:2", "irc:x:y"])
      expect(parseIdentity(key), key).toBeNull();
  });

  it("parses scopes and trigger keys back", () => {
    expect(parseScope(agentScope("acme:bot"))).toEqual({ kind: "agent", agentId: "acme:bot" });
    expect(parseScope(tenantScope("acme"))).toEqual({ kind: "tenant", tenantId: "acme" });
    expect(parseScope("team:acme")).toBeNull();
    expect(triggerKeyOf("acme:bot", triggerId("acme:bot", "nightly:report"))).toBe("nightly:report");
  });

  it("scopes run ids by tenant and shows them back unscoped", () => {
    expect(runKey("acme", "run-7")).toBe("acme:run-7");
    expect(runName("acme", runKey("acme", "a:b"))).toBe("a:b");
    expect(runName("acme", "legacy-run")).toBe("legacy-run");
  });
});
