import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import type { ChatLog, RawHttpRequest, RawHttpResponse } from "../../bot/surfaces/chat/types";
import { header } from "../../bot/surfaces/chat/types";

/** Slack shows an error unless the HTTP answer arrives within 3 s; answer a little before that. */
const ACK_DEADLINE_MS = 2_500;
/** How far a request's signed timestamp may be from this clock: older ones are replays (Slack's own rule). */
const TOLERANCE_SECONDS = 5 * 60;

/**
 * Whether Slack signed this exact body (`v0=` HMAC-SHA256 of `v0:timestamp:body` under the signing secret)
 * within five minutes of `nowMs`, either way (Bolt's `isValidSlackRequest` let a request dated in the future
 * through, so one signed now could be kept back and replayed later). Bolt's check also compares through tsscmp
 * (random bytes and two more HMACs per request) and throws for every refusal: 16 µs a 2 KB click against
 * 4.6 here. One HMAC, compared in constant time; both sides are `v0=` and 64 hex digits when well-formed, so
 * the length says nothing secret.
 */
function isSignedBySlack(secret: KeyObject, body: string, signature: string, timestamp: string, nowMs: number) {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(`v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A Bolt Receiver that does not own a server: the main Fastify server hands it the raw body of
 * `POST /slack/events`. It checks the signature and timestamp (`isSignedBySlack`, which also refuses
 * timestamps more than 5 minutes away, i.e. replays), then gives the event to `app.processEvent`
 * and answers with whatever the listener passed to `ack`.
 */
export class RouteReceiver implements Receiver {
  private app?: App;
  /** Imported once: an HMAC under a string secret imports the key again for every request. */
  private readonly signingKey: KeyObject;

  constructor(
    signingSecret: string,
    private readonly log: ChatLog,
  ) {
    this.signingKey = createSecretKey(Buffer.from(signingSecret));
  }

  init(app: App): void {
    this.app = app;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async handle(request: RawHttpRequest): Promise<RawHttpResponse> {
    const signature = header(request, "x-slack-signature") ?? "";
    const timestamp = header(request, "x-slack-request-timestamp") ?? "";
    const verified = isSignedBySlack(this.signingKey, request.body, signature, timestamp, Date.now());
    if (!verified || !this.app) return { status: 401, body: "invalid request signature" };
    const parsed = parseSlackBody(request.body, header(request, "content-type") ?? "");
    if (parsed === undefined) return { status: 400, body: "unreadable body" };
    // Bolt reads these without checking; a signed body without them is acknowledged and dropped.
    if (!isObject(parsed) || !isProcessable(parsed)) {
      this.log.warn(
        { type: isObject(parsed) ? String(parsed.type) : typeof parsed },
        "slack request dropped: malformed",
      );
      return { status: 200 };
    }
    const body = parsed as ReceiverEvent["body"];
    if (body.type === "url_verification") return { status: 200, body: { challenge: body.challenge } };

    if (body.type === "block_actions") return this.ackThenProcess(body);

    let answer!: (response: RawHttpResponse) => void;
    const answered = new Promise<RawHttpResponse>((resolve) => {
      answer = resolve;
    });
    const event: ReceiverEvent = {
      body,
      retryNum: Number(header(request, "x-slack-retry-num")) || undefined,
      retryReason: header(request, "x-slack-retry-reason"),
      ack: async (response?: unknown) => answer(ackResponse(response)),
    };
    const timer = setTimeout(() => answer({ status: 200 }), ACK_DEADLINE_MS);
    this.app
      .processEvent(event)
      .catch((error: Error) => this.log.error({ err: error.message }, "slack event failed"))
      .finally(() => {
        clearTimeout(timer);
        answer({ status: 200 });
      });
    return answered;
  }

  /**
   * A button click's ack carries no body, so it is answered before Bolt runs at all: with hundreds of clicks
   * at once, an ack then waits only for signature checks, not for listener middleware (bench/chat.ts).
   */
  private ackThenProcess(body: ReceiverEvent["body"]): RawHttpResponse {
    const event: ReceiverEvent = { body, ack: async () => {} };
    setImmediate(() => {
      this.app!.processEvent(event).catch((error: Error) =>
        this.log.error({ err: error.message }, "slack click failed"),
      );
    });
    return { status: 200 };
  }
}

function ackResponse(response: unknown): RawHttpResponse {
  if (response === undefined || response === null || response === "") return { status: 200 };
  return { status: 200, body: typeof response === "string" ? response : (response as object) };
}

/**
 * Slash commands are form fields, interactive clicks a form field `payload` of JSON, events plain JSON.
 * undefined: not readable at all.
 */
function parseSlackBody(raw: string, contentType: string): unknown {
  try {
    if (contentType.includes("application/json")) return JSON.parse(raw);
    if (raw.startsWith(PAYLOAD_FIELD) && !raw.includes("&"))
      return JSON.parse(formValue(raw.slice(PAYLOAD_FIELD.length)));
    const form = Object.fromEntries(new URLSearchParams(raw));
    return typeof form.payload === "string" ? JSON.parse(form.payload) : form;
  } catch {
    return undefined;
  }
}

/** A click's whole form: one field, `payload`. */
const PAYLOAD_FIELD = "payload=";

/**
 * One form-encoded value, decoded as URLSearchParams decodes it. The engine's own decoder takes about a third
 * of URLSearchParams' time for a 2 KB click (8 µs against 25), and the click's ack waits for it; an escape it
 * refuses (a lone `%`) is left to URLSearchParams, which keeps such text as it is.
 */
export function formValue(encoded: string): string {
  try {
    return decodeURIComponent(encoded.replaceAll("+", " "));
  } catch {
    return new URLSearchParams(`${PAYLOAD_FIELD}${encoded}`).get("payload") ?? "";
  }
}

const isText = (value: unknown) => typeof value === "string" && value.length > 0;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What Bolt dereferences before any listener of ours runs, by kind of request. */
function isProcessable(body: Record<string, unknown>): boolean {
  if (body.type === "url_verification") return typeof body.challenge === "string";
  if (typeof body.command === "string") return isText(body.user_id) && isText(body.team_id) && isText(body.channel_id);
  if (body.type === "event_callback") return isObject(body.event) && typeof body.event.type === "string";
  if (body.type === "block_actions") {
    return isObject(body.user) && isText(body.user.id) && Array.isArray(body.actions) && body.actions.every(isObject);
  }
  return false;
}
