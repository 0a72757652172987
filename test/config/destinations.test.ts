import { describe, expect, it } from "vitest";
import { parseDirectory } from "../../src/bot/main/config/directory-file";

const withDestinations = (destinations: unknown) => ({
  tenants: { acme: { users: { alice: {} }, agents: { bot: { principal: "alice", destinations } } } },
});

describe("agent destinations in the directory file", () => {
  it("keeps declared destinations and their contracts in the agent's settings", () => {
    const spec = parseDirectory(
      withDestinations({
        "https://a.example/x": "none",
        "https://b.example/y": "key-retained 24h",
        "https://c.example/z": "unique-external-id lookup https://c.example/status",
      }),
      ".",
    );
    expect(spec.tenants[0]?.agents[0]?.settings.destinations).toEqual({
      "https://a.example/x": "none",
      "https://b.example/y": "key-retained 24h",
      "https://c.example/z": "unique-external-id lookup https://c.example/status",
    });
  });

  it.each([
    [{ "https://a.example/x": "sometimes" }, /destinations.*receiving contract/],
    [{ "https://a.example/x": "key-retained forever" }, /receiving contract/],
    [{ "not a url": "none" }, /destinations/],
  ])("rejects %j with a message naming the field", (destinations, message) => {
    expect(() => parseDirectory(withDestinations(destinations), ".")).toThrow(message);
  });
});
