import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseDirectory } from "../../src/bot/main/config/directory-file";
import { unsignedAgents } from "../../src/bot/main/config/outbound-config";

const key = crypto.randomBytes(32);
const SECRET = `whsec_${key.toString("base64")}`;
const config = (agent: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  tenants: {
    acme: {
      users: { alice: {} },
      agents: { bot: { principal: "alice", ...agent }, plain: {} },
      ...extra,
    },
  },
});

describe("signing secrets in the directory file", () => {
  it("decodes signingSecret and keeps it out of the synced settings", () => {
    const spec = parseDirectory(config({ signingSecret: SECRET }), ".");
    expect(spec.signingKeys.get("acme:bot")).toEqual(key);
    expect(JSON.stringify(spec.tenants)).not.toContain(key.toString("base64"));
    expect(unsignedAgents(spec)).toEqual(["acme:plain"]);
  });

  it("reads signingSecretFile relative to the config", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-whsec-"));
    fs.writeFileSync(path.join(dir, "bot.whsec"), `${SECRET}\n`);
    expect(parseDirectory(config({ signingSecretFile: "bot.whsec" }), dir).signingKeys.get("acme:bot")).toEqual(key);
    fs.rmSync(dir, { recursive: true });
  });

  it.each([
    [{ signingSecret: "not-a-secret" }, /signingSecret: a signing secret is 'whsec_'/],
    [{ signingSecret: `whsec_${crypto.randomBytes(8).toString("base64")}` }, /24 to 64 bytes/],
    [{ signingSecret: SECRET, signingSecretFile: "x" }, /not both/],
    [{ signingSecretFile: "/nonexistent/whsec" }, /signingSecretFile: cannot read/],
  ])("refuses %j with a message naming the field", (agent, message) => {
    expect(() => parseDirectory(config(agent), ".")).toThrow(message);
  });
});

describe("limits and retention in the directory file", () => {
  const limitsOf = (spec: ReturnType<typeof parseDirectory>, name: string) =>
    spec.tenants[0]!.agents.find((a) => a.name === name)!.settings.limits;

  it("defaults to 1,000 triggers and 1 s, a tenant's limits apply to its agents, an agent's own win", () => {
    expect(limitsOf(parseDirectory(config({}), "."), "bot")).toEqual({ maxTriggers: 1000, minIntervalMs: 1000 });
    const spec = parseDirectory(
      config({ limits: { minInterval: "10s" } }, { limits: { maxTriggers: 50, minInterval: 2000 } }),
      ".",
    );
    expect(limitsOf(spec, "bot")).toEqual({ maxTriggers: 50, minIntervalMs: 10_000 });
    expect(limitsOf(spec, "plain")).toEqual({ maxTriggers: 50, minIntervalMs: 2000 });
  });

  it("defaults retention to 7 days for delivered work and 90 for the audit log", () => {
    expect(parseDirectory(config({}), ".").retention).toEqual({
      deliveredMs: 7 * 86_400_000,
      auditMs: 90 * 86_400_000,
    });
    const spec = parseDirectory({ ...config({}), retention: { delivered: "1d", audit: "30d" } }, ".");
    expect(spec.retention).toEqual({ deliveredMs: 86_400_000, auditMs: 30 * 86_400_000 });
  });

  it.each([
    [config({ limits: { maxTriggers: 0 } }), /limits\.maxTriggers/],
    [config({ limits: { minInterval: "soon" } }), /limits\.minInterval/],
    [config({ limits: { maxTrigger: 5 } }), /limits/],
    [{ ...config({}), retention: { delivered: "forever" } }, /retention\.delivered/],
  ])("refuses bad limits and retention, naming the field (%#)", (raw, message) => {
    expect(() => parseDirectory(raw, ".")).toThrow(message);
  });
});
