import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTransport } from "../../src/queue/delivery/http-transport";
import type { OutboxItem } from "../../src/store/outbox/types";

/** A destination whose answer each test picks by path: 200, 503, 400, or none at all. */
let server: http.Server;
let base: string;
const seen: Array<{ path: string; key: string; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ path: req.url ?? "", key: String(req.headers["idempotency-key"]), body });
      if (req.url === "/silent") return; // never answers
      const status = Number(req.url?.slice(1)) || 200;
      res.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const item = (id: string, destination: string): OutboxItem =>
  ({ id, kind: "trigger", destination, payload: JSON.stringify({ id }) }) as OutboxItem;

describe("the HTTP delivery transport", () => {
  it("POSTs the payload with the item's key and reads the answer's class", async () => {
    const transport = httpTransport(2_000);
    try {
      const outcomes = await Promise.all([
        transport.send(item("k-ok", `${base}/200`), "attempt-1"),
        transport.send(item("k-busy", `${base}/503`), "attempt-1"),
        transport.send(item("k-bad", `${base}/400`), "attempt-1"),
      ]);
      expect(outcomes.map((o) => o.kind)).toEqual(["acknowledged", "retryable", "rejected"]);
      expect(seen.find((s) => s.key === "k-ok")).toMatchObject({ path: "/200", body: '{"id":"k-ok"}' });
    } finally {
      await transport.close?.();
    }
  });

  it("calls a destination that never answers uncertain once the timeout passes", async () => {
    const transport = httpTransport(300);
    try {
      const outcome = await transport.send(item("k-silent", `${base}/silent`), "attempt-1");
      expect(outcome).toEqual({ kind: "uncertain", error: "no answer within 300 ms" });
    } finally {
      await transport.close?.();
    }
  });

  it("gives a clear error for a destination that is not a URL, and for one nobody listens on", async () => {
    const transport = httpTransport(2_000);
    try {
      expect(await transport.send(item("k-url", "not a url"), "attempt-1")).toEqual({
        kind: "uncertain",
        error: "invalid destination URL: not a url",
      });
      const closed = await transport.send(item("k-closed", "http://127.0.0.1:1/effects"), "attempt-1");
      expect(closed.kind).toBe("uncertain");
    } finally {
      await transport.close?.();
    }
  });

  it("sends again after close, on a new thread", async () => {
    const transport = httpTransport(2_000);
    await transport.send(item("k-before", `${base}/200`), "attempt-1");
    await transport.close?.();
    expect((await transport.send(item("k-after", `${base}/200`), "attempt-2")).kind).toBe("acknowledged");
    await transport.close?.();
  });
});
