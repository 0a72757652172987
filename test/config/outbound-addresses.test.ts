import { describe, expect, it } from "vitest";
import { parseDirectory } from "../../src/bot/main/config/directory-file";

const agentWith = (agent: Record<string, unknown>) => ({
  tenants: { acme: { users: { alice: {} }, agents: { bot: { principal: "alice", ...agent } } } },
});

const REFUSED = [
  "http://169.254.169.254/latest/meta-data/",
  "http://2852039166/", // 169.254.169.254 in decimal
  "http://0xa9.0xfe.0xa9.0xfe/",
  "http://0251.0376.0251.0376/", // octal
  "http://169.254.169.254./",
  "http://[::ffff:169.254.169.254]/",
  "http://[64:ff9b::a9fe:a9fe]/", // NAT64
  "http://[fe80::1]/",
  "http://[fd00:ec2::254]/", // the AWS metadata service over IPv6
  "http://user:pw@127.0.0.1:6379/",
  "ftp://files.example/",
  "gopher://127.0.0.1:6379/",
];

describe("outbound addresses in the directory file", () => {
  it.each(REFUSED)("refuses %s as the agent webhook, as a destination and as a lookup URL", (url) => {
    expect(() => parseDirectory(agentWith({ webhook: url }), ".")).toThrow(/tenants\.acme\.agents\.bot\.webhook/);
    expect(() => parseDirectory(agentWith({ destinations: { [url]: "none" } }), ".")).toThrow(/destinations/);
    const lookup = { "https://crm.example/notes": `unique-external-id lookup ${url}` };
    expect(() => parseDirectory(agentWith({ destinations: lookup }), ".")).toThrow(/destinations.*lookup/);
  });

  it.each([
    "http://127.0.0.1:4000/agent",
    "http://0x7f.1/", // loopback in hex: the operator declared it
    "http://10.1.2.3/",
    "http://[::1]:8080/",
    "https://hooks.example/in",
  ])("keeps loopback, private and public address %s", (url) => {
    const spec = parseDirectory(
      agentWith({ webhook: url, destinations: { [url]: `unique-external-id lookup ${url}` } }),
      ".",
    );
    expect(spec.tenants[0]!.agents[0]!.webhook).toBe(url);
  });
});
