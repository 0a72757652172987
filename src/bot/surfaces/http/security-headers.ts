import type { FastifyInstance } from "fastify";

/**
 * What a browser may do with anything this server answers. The console's pages load only their own stylesheet
 * and script (no inline script, no inline style), fetch only their own origin, post forms only to it, and may
 * not be framed by any page (clickjacking). On JSON answers these headers change nothing and cost nothing, so
 * they go on every answer: a page added later cannot forget them.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** Sets the headers above on every answer of this server (routes, errors and 404s alike). */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook("onRequest", async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });
}
