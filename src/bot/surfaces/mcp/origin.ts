/** Names that only ever reach this machine: a browser cannot be made to send them by a rebinding attacker. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether a request's `Origin` may reach `/mcp` (the MCP specification's guard against DNS rebinding). No
 * `Origin`: not a browser, allowed (the key still decides). Otherwise the origin must be the deployment's own:
 * HOLDFAST_PUBLIC_URL's, or, on a machine serving on a loopback name (the quick start), the same loopback
 * host the request was sent to. A rebound name (`evil.example` resolving to 127.0.0.1) matches neither.
 */
export function isAllowedOrigin(origin: string | undefined, host: string | undefined, publicUrl?: string): boolean {
  if (origin === undefined) return true;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false; // "null" (a sandboxed page or a file) and anything that is not an origin
  }
  if (publicUrl && from.origin === new URL(publicUrl).origin) return true;
  return host !== undefined && from.host === host.toLowerCase() && LOOPBACK.test(from.hostname);
}
