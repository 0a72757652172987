import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseDirectory } from "../../src/bot/main/config/directory-file";
import { parseEnv } from "../../src/bot/main/config/env";

const H = 3_600_000;

// Issue 15's example block, as written there.
const ISSUE_BLOCK = `
escalation:
  approvalAfter: 4h
  pausedAfter: 24h
  reviewAfter: 1h
  deliveryAfter: 1h
  levels:
    - notify: [secondaryManager]
    - after: 24h
      notify: [admins]
  repeat: 0
  quietHours: { tz: Europe/Berlin, from: "22:00", to: "07:00" }
`;

const directory = (agent: Record<string, unknown>, tenant: Record<string, unknown> = {}) => ({
  tenants: {
    acme: {
      admins: ["ada"],
      users: { ada: {}, alice: {}, bob: {} },
      agents: { a: { principal: "alice", ...agent } },
      ...tenant,
    },
  },
});
const settingsOf = (raw: unknown) => parseDirectory(raw, ".").tenants[0]!.agents[0]!.settings;

describe("escalation config", () => {
  it("reads issue 15's block exactly as written", () => {
    const block = parseYaml(ISSUE_BLOCK) as Record<string, unknown>;
    expect(settingsOf(directory({ secondaryManager: "bob", ...block }, {})).escalation).toEqual({
      delays: { approval: 4 * H, paused: 24 * H, review: H, delivery: H },
      levels: [
        { afterMs: null, notify: ["secondaryManager"] },
        { afterMs: 24 * H, notify: ["admins"] },
      ],
      repeatMs: 0,
      quietHours: { tz: "Europe/Berlin", from: "22:00", to: "07:00" },
    });
  });

  it("an agent's fields override the tenant's defaults one by one; levels as a whole", () => {
    const tenant = { escalation: { reviewAfter: "2h", levels: [{ notify: ["admins"] }], repeat: "30m" } };
    const settings = settingsOf(directory({ escalation: { reviewAfter: "10m" } }, tenant));
    expect(settings.escalation).toMatchObject({
      delays: { review: 600_000, approval: 4 * H },
      levels: [{ afterMs: null, notify: ["admins"] }],
      repeatMs: 30 * 60_000,
    });
  });

  it("without a block: one level for the secondary manager, or none without one", () => {
    expect(settingsOf(directory({ secondaryManager: "bob" })).escalation.levels).toEqual([
      { afterMs: null, notify: ["secondaryManager"] },
    ]);
    expect(settingsOf(directory({})).escalation.levels).toEqual([]);
  });

  it("names users, and keeps escalation channels per platform", () => {
    const settings = settingsOf(
      directory({ escalation: { levels: [{ notify: ["bob", "principal"] }] }, escalationChannel: { slack: "C0ESC" } }),
    );
    expect(settings.escalation.levels[0]!.notify).toEqual(["bob", "principal"]);
    expect(settings.escalationChannel).toEqual({ slack: "C0ESC" });
  });

  it.each([
    [
      { escalation: { levels: [{ notify: ["nobody"] }] } },
      "tenants.acme.agents.a.escalation.levels: unknown role or user 'nobody'",
    ],
    [
      { escalation: { approvalAfter: "soon" } },
      "tenants.acme.agents.a.escalation.approvalAfter: a duration such as 30s, 4h or 1d",
    ],
    [
      { escalation: { quietHours: { tz: "Mars/Base", from: "22:00", to: "07:00" } } },
      "quietHours.tz: an IANA time zone",
    ],
    [
      { escalation: { quietHours: { tz: "UTC", from: "25:00", to: "07:00" } } },
      'quietHours.from: a time of day such as "22:00"',
    ],
    [{ escalation: { levels: [], repeats: 1 } }, "escalation.repeats: unknown field (misspelled?)"],
    [{ escalation: { levels: [{ notify: [] }] } }, "escalation.levels.0.notify"],
  ])("refuses %j with a message naming the field", (agent, message) => {
    expect(() => parseDirectory(directory(agent), ".")).toThrow(message);
  });

  it("the environment takes the one duration grammar: weeks and compound durations too", () => {
    expect(parseEnv({ HOLDFAST_DRAIN_TIMEOUT: "1w" }).HOLDFAST_DRAIN_TIMEOUT).toBe(604_800_000);
    expect(parseEnv({ HOLDFAST_DRAIN_TIMEOUT: "1h30m" }).HOLDFAST_DRAIN_TIMEOUT).toBe(5_400_000);
    expect(parseEnv({ HOLDFAST_DRAIN_TIMEOUT: "250" }).HOLDFAST_DRAIN_TIMEOUT).toBe(250);
    expect(() => parseEnv({ HOLDFAST_DRAIN_TIMEOUT: "1y" })).toThrow("HOLDFAST_DRAIN_TIMEOUT");
  });

  it("HOLDFAST_MONITOR_INTERVAL takes durations (default 30s); HOLDFAST_PUBLIC_URL must be http(s)", () => {
    expect(parseEnv({}).HOLDFAST_MONITOR_INTERVAL).toBe(30_000);
    expect(parseEnv({ HOLDFAST_MONITOR_INTERVAL: "1s" }).HOLDFAST_MONITOR_INTERVAL).toBe(1_000);
    expect(() => parseEnv({ HOLDFAST_MONITOR_INTERVAL: "often" })).toThrow("HOLDFAST_MONITOR_INTERVAL");
    expect(() => parseEnv({ HOLDFAST_MONITOR_INTERVAL: "0s" })).toThrow("HOLDFAST_MONITOR_INTERVAL");
    expect(parseEnv({ HOLDFAST_PUBLIC_URL: "https://ops.example.com" }).HOLDFAST_PUBLIC_URL).toBe(
      "https://ops.example.com",
    );
    expect(() => parseEnv({ HOLDFAST_PUBLIC_URL: "javascript:alert(1)" })).toThrow("HOLDFAST_PUBLIC_URL");
  });
});
