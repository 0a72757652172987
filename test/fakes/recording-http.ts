import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fake saw it. `body` is always the raw text so signature checks can be replayed. */
export interface RecordedCall {
  method: string;
  /** Pathname only; the query string is split out so routes can match exact paths. */
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
  json?: unknown;
  form?: Record<string, string>;
}

export interface FakeResponse {
  status?: number;
  /** A string is sent verbatim as text/plain, anything else as JSON, `undefined` as an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returning `undefined` means "not mine": the next responder (or the 404 fallback) gets the call. */
export type Responder = (call: RecordedCall) => FakeResponse | undefined | Promise<FakeResponse | undefined>;

export type CallPredicate = (call: RecordedCall) => boolean;

export interface RecordingServer {
  url: string;
  port: number;
  calls: RecordedCall[];
  /** Resolves with the first call (already recorded or future) matching `predicate`. */
  waitFor(predicate: CallPredicate, timeoutMs?: number): Promise<RecordedCall>;
  /** Overrides the default route for one path; later overrides win. Returns a function that removes it. */
  respond(path: string | RegExp, responder: Responder): () => void;
  close(): Promise<void>;
}

const DEFAULT_WAIT_MS = 2000;

export async function startRecordingServer(route?: Responder): Promise<RecordingServer> {
  const calls: RecordedCall[] = [];
  const overrides: Array<{ match: string | RegExp; responder: Responder }> = [];
  const waiters = new Set<{ predicate: CallPredicate; settle: (call?: RecordedCall, error?: Error) => void }>();

  const record = (call: RecordedCall) => {
    calls.push(call);
    for (const waiter of waiters) if (safely(waiter.predicate, call)) waiter.settle(call);
  };

  const answer = async (call: RecordedCall): Promise<FakeResponse> => {
    const matching = overrides.filter(({ match }) =>
      typeof match === "string" ? match === call.path : match.test(call.path),
    );
    for (const { responder } of matching.reverse()) {
      const response = await responder(call);
      if (response) return response;
    }
    return (
      (await route?.(call)) ?? { status: 404, body: { error: "no fake route", method: call.method, path: call.path } }
    );
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const call = parseCall(req, Buffer.concat(chunks).toString("utf8"));
    // Record before answering so waitFor sees a call even when its responder is slow (long polling).
    record(call);
    let response: FakeResponse;
    try {
      response = await answer(call);
    } catch (error) {
      response = { status: 500, body: { error: error instanceof Error ? error.message : String(error) } };
    }
    // The client may have gone away while a slow responder ran; there is nobody left to answer.
    if (!res.destroyed) writeResponse(res, response);
  };
  // An aborted upload rejects the body iterator; that is the client's business, not a test failure.
  const server = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    waitFor(predicate, timeoutMs = DEFAULT_WAIT_MS) {
      const found = calls.find((call) => safely(predicate, call));
      if (found) return Promise.resolve(found);
      return new Promise<RecordedCall>((resolve, reject) => {
        const waiter = {
          predicate,
          settle: (call?: RecordedCall, error?: Error) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            if (call) resolve(call);
            else reject(error);
          },
        };
        const timer = setTimeout(() => {
          const seen = calls.map((c) => `${c.method} ${c.path}`).join(", ") || "none";
          waiter.settle(undefined, new Error(`waitFor timed out after ${timeoutMs} ms; calls seen: ${seen}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    respond(path, responder) {
      const entry = { match: path, responder };
      overrides.push(entry);
      return () => {
        const index = overrides.indexOf(entry);
        if (index >= 0) overrides.splice(index, 1);
      };
    },
    close() {
      for (const waiter of waiters) waiter.settle(undefined, new Error("recording server closed"));
      // Clients keep sockets alive; without this close() would wait for their idle timeout.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** Predicates poke at `json` shapes of unrelated calls; a throw there means "no match", not a crashed server. */
function safely(predicate: CallPredicate, call: RecordedCall): boolean {
  try {
    return predicate(call);
  } catch {
    return false;
  }
}

function parseCall(req: http.IncomingMessage, body: string): RecordedCall {
  const url = new URL(req.url ?? "/", "http://fake.invalid");
  const call: RecordedCall = {
    method: req.method ?? "GET",
    path: decodePath(url.pathname),
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    body,
  };
  const contentType = String(req.headers["content-type"] ?? "");
  if (contentType.includes("json")) {
    try {
      call.json = JSON.parse(body);
    } catch {
      // Malformed JSON stays available as `body`; asserting on it is the test's job.
    }
  } else if (contentType.includes("application/x-www-form-urlencoded")) {
    call.form = Object.fromEntries(new URLSearchParams(body));
  }
  return call;
}

/** Clients percent-encode some segments (discord.js sends `%40original`); tests should match what they mean. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

function writeResponse(res: http.ServerResponse, { status = 200, body, headers = {} }: FakeResponse): void {
  // discord.js parses any JSON content-type as a body, so a 204 must carry neither.
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const isText = typeof body === "string";
  res.writeHead(status, {
    "content-type": isText ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
    ...headers,
  });
  res.end(isText ? body : JSON.stringify(body));
}
