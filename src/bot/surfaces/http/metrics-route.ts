import type { FastifyInstance } from "fastify";
import { sameSecret } from "../../../policy/secret-compare";
import { bearerToken } from "./auth";
import { ApiError } from "./errors";
import { defineRoute } from "./route";

/** What `/metrics` needs of the metrics the composition root keeps: the Prometheus text, read at scrape time. */
export interface MetricsSource {
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * `GET /metrics` in the Prometheus text format; with `token` set, only for `Authorization: Bearer <token>`.
 * Declared even on a server without metrics (a test's), so the OpenAPI document is the same; there it is a 404.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: MetricsSource | null, token?: string): void {
  defineRoute(
    app,
    {
      method: "GET",
      url: "/metrics",
      summary: "Prometheus metrics (text exposition format)",
      description: "Open unless HOLDFAST_METRICS_TOKEN is set; then `Authorization: Bearer <token>` is required.",
      auth: "metrics",
      produces: "text/plain",
      responses: { 200: "the metrics", 503: "the database did not answer" },
    },
    async (_input, request, reply) => {
      if (token) {
        const given = bearerToken(request);
        if (!given || !sameSecret(given, token))
          throw new ApiError("unauthorized", "the metrics token is required (Authorization: Bearer <token>)");
      }
      if (!metrics) throw new ApiError("not_found", "this server keeps no metrics");
      // A gauge's database read failed: no partial scrape (Prometheus records the failed scrape as up=0).
      const rendered = await metrics.render().catch(() => null);
      if (!rendered) throw new ApiError("unavailable", "the database did not answer; try the scrape again");
      return reply.type(rendered.contentType).send(rendered.body);
    },
  );
}
