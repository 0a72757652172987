import { type RecordedCall, type RecordingServer, startRecordingServer } from "./recording-http";

export * from "./slack-requests";

// Fake of the Slack Web API (what Bolt's WebClient calls) plus response_url endpoints.

export interface SlackFakeOptions {
  teamId?: string;
  botUserId?: string;
  botId?: string;
}

export interface SlackFake extends RecordingServer {
  /** Pass as `clientOptions.slackApiUrl`; the trailing slash matters to the WebClient. */
  apiUrl: string;
  /** A URL to put in payloads as `response_url`; `respond()` then posts here. */
  responseUrl(id?: string): string;
  /** Recorded Web API calls of one method, e.g. "chat.postMessage". */
  callsTo(method: string): RecordedCall[];
}

/** Web API arguments arrive form-encoded (the WebClient default) or as JSON; tests should not care which. */
export function slackArgs(call: RecordedCall): Record<string, unknown> {
  return { ...call.form, ...(call.json as Record<string, unknown> | undefined) };
}

export async function startSlackFake(options: SlackFakeOptions = {}): Promise<SlackFake> {
  const identity = { teamId: "T0001", botUserId: "UBOT0001", botId: "BBOT0001", ...options };
  let tsCounter = 0;
  const nextTs = () => `1700000000.${String(++tsCounter).padStart(6, "0")}`;
  let viewCounter = 0;

  const methods: Record<string, (args: Record<string, unknown>) => Record<string, unknown>> = {
    "auth.test": () => ({
      url: "https://holdfast-test.slack.com/",
      team: "Holdfast Test",
      user: "holdfast",
      team_id: identity.teamId,
      user_id: identity.botUserId,
      bot_id: identity.botId,
    }),
    "chat.postMessage": (args) => {
      const ts = nextTs();
      return { channel: args.channel, ts, message: botMessage(ts, args) };
    },
    "chat.update": (args) => ({
      channel: args.channel,
      ts: args.ts,
      text: args.text,
      message: botMessage(args.ts, args),
    }),
    "chat.postEphemeral": () => ({ message_ts: nextTs() }),
    // A DM channel id derived from the user keeps repeated opens stable, as on real Slack.
    "conversations.open": (args) => ({ channel: { id: `D${String(args.users ?? "").replace(/\W/g, "")}` } }),
    "views.open": (args) => ({ view: fakeView(args, ++viewCounter) }),
    "views.push": (args) => ({ view: fakeView(args, ++viewCounter) }),
    "views.update": (args) => ({ view: fakeView(args, ++viewCounter) }),
    "views.publish": (args) => ({ view: fakeView(args, ++viewCounter) }),
  };

  function botMessage(ts: unknown, args: Record<string, unknown>) {
    return { type: "message", ts, text: args.text, user: identity.botUserId, bot_id: identity.botId };
  }

  const server = await startRecordingServer((call) => {
    if (call.path.startsWith("/response/")) return { body: { ok: true } };
    const method = /^\/api\/([\w.]+)$/.exec(call.path)?.[1];
    if (!method) return undefined;
    const handler = methods[method];
    // Real Slack answers unknown methods with HTTP 200 and ok:false; the WebClient turns that into an error.
    if (!handler) return { body: { ok: false, error: "unknown_method" } };
    return { body: { ok: true, ...handler(slackArgs(call)) } };
  });

  return {
    ...server,
    apiUrl: `${server.url}/api/`,
    responseUrl: (id = "default") => `${server.url}/response/${id}`,
    callsTo: (method) => server.calls.filter((c) => c.path === `/api/${method}`),
  };
}

function fakeView(args: Record<string, unknown>, n: number) {
  // The WebClient sends `view` as a JSON string inside the form.
  const view = typeof args.view === "string" ? JSON.parse(args.view) : (args.view ?? {});
  return { id: `V${String(n).padStart(4, "0")}`, hash: `hash-${n}`, ...view };
}
