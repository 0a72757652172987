import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadDirectoryFile, parseDirectory } from "../../src/bot/main/config/directory-file";
import { parseEnv } from "../../src/bot/main/config/env";
import { secretFromEnv } from "../../src/bot/main/config/secrets";
import { hashKey } from "../../src/policy/key-hash";
import { EXAMPLE_CONFIG } from "../support/harness";

const minimal = (user: Record<string, unknown>, agent: Record<string, unknown> = {}) => ({
  tenants: {
    acme: {
      slack: { teamId: "T1" },
      admins: [],
      users: { alice: user },
      agents: { a: { principal: "alice", ...agent } },
    },
  },
});

describe("directory file", () => {
  it("loads the example: two tenants, roles and identities, keys hashed", () => {
    const spec = loadDirectoryFile(EXAMPLE_CONFIG);
    const acme = spec.tenants.find((t) => t.id === "acme")!;
    expect(acme.users.map((u) => u.name).sort()).toEqual(["ada", "alice", "bob", "mia", "rita", "sam"]);
    expect(acme.agents[0]).toMatchObject({
      name: "ops-agent",
      principal: "alice",
      supervisors: ["sam"],
      reviewers: ["rita"],
      secondaryManager: "bob",
    });
    const alice = acme.users.find((u) => u.name === "alice")!;
    expect(alice.apiKeyHash).toBe(hashKey("demo-key-acme-alice-0002"));
    expect(alice.identities).toContain("slack:T0ACME:U0ALICE");
    expect(alice.identities).toContain("discord:900000000000000001:800000000000000002");
    expect(alice.identities).toContain("telegram:7000002");
    expect(spec.tenants.map((t) => t.id)).toEqual(["acme", "globex"]);
  });

  it.each<[string, unknown, RegExp]>([
    ["a wrong type", minimal({ apiKey: 12 }), /tenants\.acme\.users\.alice\.apiKey/],
    ["a short key", minimal({ apiKey: "short" }), /tenants\.acme\.users\.alice\.apiKey: an API key needs at least 16/],
    ["an unknown field", minimal({ apikey: "x".repeat(20) }), /tenants\.acme\.users\.alice/],
    [
      "an unknown principal",
      minimal({}, { principal: "zed" }),
      /tenants\.acme\.agents\.a\.principal: unknown user 'zed'/,
    ],
    [
      "an unknown reviewer",
      minimal({}, { reviewers: ["alice", "zed"] }),
      /tenants\.acme\.agents\.a\.reviewers\.1: unknown user 'zed'/,
    ],
    ["a bad webhook", minimal({}, { webhook: "not a url" }), /tenants\.acme\.agents\.a\.webhook/],
    ["no tenants", {}, /tenants/],
  ])("rejects %s and names the field", (_name, raw, message) => {
    expect(() => parseDirectory(raw, ".")).toThrow(message);
  });

  it("rejects one platform identity claimed by two users", () => {
    const raw = { tenants: { acme: { users: { a: { telegram: 1 }, b: { telegram: 1 } } } } };
    expect(() => parseDirectory(raw, ".")).toThrow(
      /tenants\.acme\.users\.b: identity telegram:1 is already used by tenants\.acme\.users\.a/,
    );
  });

  it("reads a key from apiKeyFile, relative to the config file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-cfg-"));
    fs.writeFileSync(path.join(dir, "alice.key"), "file-key-for-alice-123\n");
    const spec = parseDirectory(minimal({ apiKeyFile: "alice.key" }), dir);
    expect(spec.tenants[0]!.users[0]!.apiKeyHash).toBe(hashKey("file-key-for-alice-123"));
    expect(() => parseDirectory(minimal({ apiKeyFile: "missing.key" }), dir)).toThrow(
      /apiKeyFile: cannot read missing.key/,
    );
  });
});

describe("environment", () => {
  it("has defaults, and names a bad variable", () => {
    expect(parseEnv({})).toMatchObject({ PORT: 3000, DATABASE_URL: "file:./data/holdfast.db", LOG_LEVEL: "info" });
    expect(() => parseEnv({ PORT: "http" })).toThrow(/PORT/);
  });

  it("reads a secret from NAME or NAME_FILE", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "holdfast-env-")), "token");
    fs.writeFileSync(file, "from-file\n");
    expect(secretFromEnv({ TOKEN: "inline" }, "TOKEN")).toBe("inline");
    expect(secretFromEnv({ TOKEN_FILE: file }, "TOKEN")).toBe("from-file");
    expect(secretFromEnv({}, "TOKEN")).toBeUndefined();
  });
});
