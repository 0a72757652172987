import { describe, expect, it } from "vitest";
import { sameSecret } from "./secret-compare";

describe("sameSecret", () => {
  it("is true only for the same text", () => {
    expect(sameSecret("token-123", "token-123")).toBe(true);
    expect(sameSecret("token-124", "token-123")).toBe(false);
  });

  it("is false, never a throw, for another length or another encoding of the same length", () => {
    expect(sameSecret("", "token-123")).toBe(false);
    expect(sameSecret("token-1234", "token-123")).toBe(false);
    expect(sameSecret("\u00e9".repeat(9), "token-123")).toBe(false);
    expect(sameSecret("\u{1f600}".repeat(4), "12345678")).toBe(false);
  });
});
