import { describe, expect, it } from "vitest";
import { parseDirectory } from "../../src/bot/main/config/directory-file";

const withReviewChannel = (reviewChannel: unknown) => ({
  tenants: { acme: { users: { rita: {} }, agents: { a: { reviewers: ["rita"], reviewChannel } } } },
});

describe("reviewChannel", () => {
  it("is kept in the agent's settings, each id as a string", () => {
    const spec = parseDirectory(
      withReviewChannel({ slack: "C0REVIEW", discord: "1100000000000000300", telegram: -100123 }),
      ".",
    );
    expect(spec.tenants[0]!.agents[0]!.settings.reviewChannel).toEqual({
      slack: "C0REVIEW",
      discord: "1100000000000000300",
      telegram: "-100123",
    });
  });

  it.each([
    [{ slack: "#reviews" }, "tenants.acme.agents.a.reviewChannel.slack: a Slack channel id"],
    [{ discord: 1100000000000000300 }, "tenants.acme.agents.a.reviewChannel.discord"],
    [{ telegram: "reviews" }, "tenants.acme.agents.a.reviewChannel.telegram: a Telegram chat id"],
    [{ teams: "x" }, "tenants.acme.agents.a.reviewChannel"],
  ])("refuses %j, naming the field", (reviewChannel, message) => {
    expect(() => parseDirectory(withReviewChannel(reviewChannel), ".")).toThrow(message);
  });
});
