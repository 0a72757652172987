import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTransport } from "../../src/queue/delivery/http-transport";
import type { OutboxItem } from "../../src/store/outbox/types";
import { until } from "../support/until";

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
      if (req.url === "/drop") return req.socket.destroy(); // read the whole request, then hang up
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

  it("calls a request that never left not sent: a refused connection, a failed TLS handshake, an unknown host", async () => {
    const transport = httpTransport(2_000);
    try {
      const refused = await transport.send(item("k-closed", "http://127.0.0.1:1/effects"), "attempt-1");
      expect(refused).toMatchObject({ kind: "not_sent", error: expect.stringMatching(/ECONNREFUSED/) });
      // TLS to a plain-HTTP port: the handshake fails before a byte of the request is written.
      const tls = await transport.send(item("k-tls", `${base.replace("http:", "https:")}/200`), "attempt-1");
      expect(tls.kind).toBe("not_sent");
      const dns = await transport.send(item("k-dns", "http://no-such-host.invalid/effects"), "attempt-1");
      expect(dns).toMatchObject({ kind: "not_sent", error: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/) });
      expect(seen.map((s) => s.key)).not.toContain("k-tls");
    } finally {
      await transport.close?.();
    }
  });

  it("calls a connection broken after the request was written uncertain: the destination may have acted", async () => {
    const transport = httpTransport(2_000);
    try {
      const outcome = await transport.send(item("k-drop", `${base}/drop`), "attempt-1");
      expect(outcome.kind).toBe("uncertain");
      expect(seen.find((s) => s.key === "k-drop")).toBeDefined();
    } finally {
      await transport.close?.();
    }
  });

  it("calls a destination that is not a URL a permanent failure: it was never sent and never can be", async () => {
    const transport = httpTransport(2_000);
    try {
      expect(await transport.send(item("k-url", "not a url"), "attempt-1")).toEqual({
        kind: "not_sent",
        permanent: true,
        error: "invalid destination URL: not a url",
      });
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

describe("the HTTP delivery transport's thread", () => {
  it("ends once it has had nothing to send for a while, and the next send starts another", async () => {
    const transport = httpTransport(2_000, new Map(), 100);
    try {
      expect(transport.threadRunning()).toBe(false);
      expect((await transport.send(item("k-idle-1", `${base}/200`), "attempt-1")).kind).toBe("acknowledged");
      expect(transport.threadRunning()).toBe(true);
      await until(
        async () => transport.threadRunning(),
        (running) => !running,
        5_000,
      );
      expect((await transport.send(item("k-idle-2", `${base}/200`), "attempt-1")).kind).toBe("acknowledged");
      expect(seen.filter((s) => s.key.startsWith("k-idle-")).map((s) => s.key)).toEqual(["k-idle-1", "k-idle-2"]);
    } finally {
      await transport.close?.();
    }
  });
});
