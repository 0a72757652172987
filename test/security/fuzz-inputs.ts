import fc from "fast-check";
import { KEYS } from "../support/harness";
import { AGENT_KEYS, DESTINATION } from "./doors-harness";

// Generators of hostile input for every door. Each one only makes requests that must be refused (or that
// only read): the fuzz suite then expects the guarded tables to be exactly as they were.

/** Text of every kind: plain, odd unicode (graphemes, lone surrogates), NUL, control characters, huge. */
export const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("a\u0000b", "\u0000", "\ud800", "\udfff\ud800", "\u202e\u2066", "\ufeff", "🏳️‍🌈", "<!channel>"),
  fc.nat({ max: 3 }).map((n) => "x".repeat(10_000 * (n + 1))),
);

/** JSON nested `levels` deep, as text. */
const deep = fc.integer({ min: 60, max: 3_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`);

/** Any JSON value, with odd strings inside. */
const jsonish = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.dictionary(text, fc.oneof(text, fc.jsonValue())));

/** A request body as sent on the wire: malformed JSON, deep or huge JSON, or JSON of the wrong shape. */
export const bodyText = fc.oneof(
  jsonish.map((v) => JSON.stringify(v) ?? "null"),
  fc.string({ maxLength: 60 }), // mostly not JSON at all
  fc.constantFrom("", "{", "[", '{"a":', "nul", "\u0000", '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
  deep,
  fc.nat({ max: 2 }).map((n) => JSON.stringify({ pad: "y".repeat(70_000 + n * 100_000) })),
);

/** A structurally plausible object whose fields have random types and values. */
export const wrongTypes = (fields: string[]) =>
  fc.dictionary(fc.constantFrom(...fields, "extra"), fc.oneof(text, fc.jsonValue({ maxDepth: 2 })), { minKeys: 1 });

export const ALL_USER_KEYS = Object.values(KEYS);
/** Keys that fail authentication: none, made up, another kind of key. */
const badKey = fc.oneof(
  fc.constant(null),
  fc.constantFrom("demo-key-acme-ada-0000", "", "Bearer", "x".repeat(5000)),
  fc.string({ maxLength: 30 }),
);
const anyKey = fc.oneof(badKey, fc.constantFrom(...ALL_USER_KEYS, ...Object.values(AGENT_KEYS)));

export interface ApiRequest {
  method: "GET" | "POST" | "DELETE";
  url: string;
  key: string | null;
  body?: string;
  contentType?: string;
}

const seg = fc.oneof(
  fc.constantFrom("ops-agent", "globex-agent", "fuzz-run", "nope"),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constantFrom("%00", "a%00b", "%ff", "..", "%2e%2e", "x".repeat(300)),
);

/**
 * API requests, by route, with the callers that must be refused there (cross-tenant, wrong role, bad key),
 * or with bodies that cannot pass validation by construction.
 */
export function apiRequests(run: { id: string; version: number; digest: string }): fc.Arbitrary<ApiRequest> {
  const post = (url: fc.Arbitrary<string>, key: fc.Arbitrary<string | null>, body: fc.Arbitrary<string>) =>
    fc.record({
      method: fc.constant("POST" as const),
      url,
      key,
      body,
      contentType: fc.oneof(
        fc.constant("application/json"),
        fc.constantFrom("text/plain", "application/x-www-form-urlencoded"),
      ),
    });
  const get = (url: fc.Arbitrary<string>) => fc.record({ method: fc.constant("GET" as const), url, key: anyKey });
  const json = (v: fc.Arbitrary<unknown>) =>
    fc.oneof(
      v.map((x) => JSON.stringify(x)),
      bodyText,
    );
  const notOwner = fc.oneof(badKey, fc.constantFrom(KEYS.mia, KEYS.sam, KEYS.rita, KEYS.gina, AGENT_KEYS.globex));
  const staleDigest = fc.oneof(
    fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`),
    text,
  );
  const staleDecision = fc.record({
    eventId: text,
    action: fc.constantFrom("approve", "deny"),
    version: fc.oneof(fc.integer({ min: run.version + 1, max: 2 ** 31 }), fc.constant(run.version)),
    digest: staleDigest,
  });
  const badRun = fc.record({
    id: fc.oneof(fc.constant(run.id), text),
    agent: fc.constantFrom("ops-agent", "globex-agent"),
    operation: text,
    destination: fc.oneof(fc.constant(DESTINATION), fc.constantFrom("http://169.254.169.254/", "file:///etc/passwd")),
    packet: jsonish,
    // Never only rita: mia is a member, gina another tenant's, zed unknown.
    reviewers: fc
      .array(fc.constantFrom("rita", "mia", "gina", "zed", "\u0000"), { minLength: 1 })
      .map((r) => [...r, "mia"]),
    deadline: fc.oneof(fc.constant("2020-01-01T00:00:00Z"), text),
    escalateAfter: fc.oneof(fc.constantFrom(2 ** 31, 1e300, -1, "99999999d"), text),
  });
  return fc.oneof(
    get(fc.constantFrom("/healthz", "/v1/outbox", "/v1/outbox?limit=-1&state=%00", "/v1/runs/fuzz-run")),
    get(seg.map((s) => `/v1/agents/${s}/control`)),
    get(seg.map((s) => `/v1/agents/${s}/triggers`)),
    get(seg.map((s) => `/v1/runs/${s}`)),
    post(
      seg.map((s) => `/v1/agents/${s}/pause`),
      fc.oneof(badKey, fc.constant(KEYS.gina)),
      json(wrongTypes(["reason", "until"])),
    ),
    post(
      seg.map((s) => `/v1/agents/${s}/resume`),
      anyKey,
      json(wrongTypes(["dryRun"])),
    ),
    post(fc.constant("/v1/tenant/pause"), notOwner, json(wrongTypes(["reason", "until"]))),
    post(fc.constant("/v1/tenant/resume"), anyKey, bodyText),
    post(fc.constant("/v1/runs"), anyKey, json(badRun)),
    post(
      fc.constant(`/v1/runs/${run.id}/packet`),
      fc.oneof(notOwner, fc.constant(AGENT_KEYS.globex)),
      json(wrongTypes(["packet", "version"])),
    ),
    post(
      fc.constant(`/v1/runs/${run.id}/packet`),
      fc.constant(AGENT_KEYS.ops),
      json(fc.record({ packet: jsonish, version: fc.integer({ min: run.version + 1, max: 1000 }) })),
    ),
    post(
      seg.map((s) => `/v1/runs/${s}/decisions`),
      anyKey,
      json(staleDecision),
    ),
    post(
      seg.map((s) => `/v1/outbox/${s}/reconcile`),
      anyKey,
      json(wrongTypes(["resolution", "note"])),
    ),
    post(
      seg.map((s) => `/v1/agents/${s}/triggers`),
      notOwner,
      json(wrongTypes(["key", "every", "cron", "destination"])),
    ),
    post(
      seg.map((s) => `/v1/agents/${s}/events`),
      notOwner,
      json(wrongTypes(["eventId", "type", "payload"])),
    ),
    post(
      seg.map((s) => `/v1/agents/${s}/messages`),
      anyKey,
      json(wrongTypes(["platform", "channel", "text"])),
    ),
    fc.record({
      method: fc.constant("DELETE" as const),
      url: seg.map((s) => `/v1/agents/ops-agent/triggers/${s}`),
      key: notOwner,
    }),
  );
}

/** Chat identities: unknown people, known people of another workspace, and known people (who only read). */
export const SLACK_USERS = ["U0ADA", "U0ALICE", "U0MIA", "U0RITA", "U0GINA", "U0NOBODY"] as const;
export const TELEGRAM_USERS = [7000001, 7000002, 7000006, 7000101, 9999999] as const;
export const DISCORD_USERS = ["800000000000000001", "800000000000000006", "800000000000000101", "800000000000099999"];
export const DISCORD_GUILDS = ["900000000000000001", "900000000000000002", "900000000000000999"];

/**
 * The commands anyone may send without changing anything guarded: `/status` and `/approvals` only read, and
 * `/resume` of a running agent is refused. `/pause` is only sent by people the directory does not know here.
 */
export const readOnlyCommand = fc.constantFrom("status", "approvals", "resume");
export const buttonValue = (approveToken: string) =>
  fc.oneof(
    fc
      .constantFrom("run.approve", "run.deny", "resume.confirm", "resume.cancel", "other")
      .chain((action) =>
        fc.oneof(fc.constant(approveToken), fc.string({ maxLength: 20 })).map((token) => `${action}:${token}`),
      ),
    text,
  );
