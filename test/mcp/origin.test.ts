import { describe, expect, it } from "vitest";
import { isAllowedOrigin } from "../../src/bot/surfaces/mcp/origin";

// The MCP specification's guard against DNS rebinding: a browser page may call /mcp only from the deployment's
// own origin. Non-browser clients send no Origin at all.
describe("the Origin a request to /mcp may come from", () => {
  const PUBLIC = "https://holdfast.acme.example";

  it.each<[string | undefined, string, string | undefined, boolean]>([
    [undefined, "holdfast.acme.example", PUBLIC, true],
    ["https://holdfast.acme.example", "holdfast.acme.example", PUBLIC, true],
    ["https://holdfast.acme.example:443", "10.0.0.7:3000", PUBLIC, true],
    ["http://holdfast.acme.example", "holdfast.acme.example", PUBLIC, false],
    ["https://evil.example", "holdfast.acme.example", PUBLIC, false],
    ["http://127.0.0.1:3000", "127.0.0.1:3000", undefined, true],
    ["http://localhost:3000", "LOCALHOST:3000", undefined, true],
    ["http://[::1]:3000", "[::1]:3000", undefined, true],
    ["http://localhost:8080", "localhost:3000", undefined, false],
    ["http://evil.example:3000", "evil.example:3000", undefined, false],
    ["null", "127.0.0.1:3000", undefined, false],
    ["not a url", "127.0.0.1:3000", undefined, false],
  ])("Origin %s, Host %s, public URL %s: %s", (origin, host, publicUrl, allowed) => {
    expect(isAllowedOrigin(origin, host, publicUrl)).toBe(allowed);
  });
});
