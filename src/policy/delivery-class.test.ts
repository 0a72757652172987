import { describe, expect, it } from "vitest";
import { attemptResultOf, unknownOutcomeText } from "./delivery-class";

describe("an unknown outcome's result text", () => {
  it("gives back the attempt's own result, so a page showing the attempt apart does not repeat it", () => {
    const at = new Date("2026-12-01T14:36:00Z");
    const text = unknownOutcomeText(2, at, "no answer within 10000 ms", "key-retained 24h");
    expect(text).toBe(
      "outcome unknown after attempt 2 at 2026-12-01T14:36:00.000Z: no answer within 10000 ms; contract 'key-retained 24h'",
    );
    expect(attemptResultOf(text)).toBe("no answer within 10000 ms");
    expect(attemptResultOf(unknownOutcomeText(1, null, null, "none"))).toBe("no answer");
    expect(attemptResultOf("HTTP 503")).toBe("HTTP 503");
  });
});
