// Where Holdfast may send (design.md section 11): pure rules on URLs and IP addresses, no I/O. Plain JavaScript
// (typed by addresses.d.mts) because the delivery thread (http-thread.worker.mjs) applies the same rule to
// every address a hostname resolves to, and a worker thread cannot load TypeScript under every runner.
import ipaddr from "ipaddr.js";

/**
 * Addresses that answer for the machine's cloud provider rather than for a destination: the instance
 * metadata services outside 169.254.0.0/16 (AWS over IPv6, Alibaba Cloud). The rest (AWS, GCP, Azure,
 * Oracle, OpenStack) sit at 169.254.169.254, which the link-local rule covers.
 */
const METADATA = ["fd00:ec2::254", "100.100.100.200"];

/** IPv6 forms that carry an IPv4 address in their low 32 bits: IPv4-mapped, NAT64 (RFC 6052), IPv4-compatible. */
function embeddedIPv4(v6) {
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const parts = v6.parts;
  const low = new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);
  if (v6.range() === "rfc6052") return low;
  const compatible = parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1);
  return compatible ? low : null;
}

/**
 * Why an IP address is refused as a destination, or null when it may be used. Loopback and private
 * addresses are allowed: the operator declared them.
 * @param {string} text an IPv4 or IPv6 address, with or without brackets
 */
export function addressRefusal(text) {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  let address = ipaddr.parse(bare);
  if (address.kind() === "ipv6") address = embeddedIPv4(address) ?? address;
  const normal = address.toNormalizedString();
  if (METADATA.some((m) => ipaddr.parse(m).toNormalizedString() === normal)) return "metadata_address";
  return address.range() === "linkLocal" ? "link_local_address" : null;
}

/**
 * Why a URL may not be sent to, or null. WHATWG URL parsing (the same as undici's and fetch's) turns every
 * spelling of an IPv4 address (decimal 2852039166, hex 0xa9.0xfe..., octal, a trailing dot) into its dotted
 * form first, so the address rule sees the address the connection would use.
 * @param {string} text
 */
export function urlRefusal(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return "invalid_url";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "scheme";
  if (url.username || url.password) return "credentials";
  return addressRefusal(url.hostname);
}

const WORDS = {
  invalid_url: "not a URL",
  scheme: "only http and https URLs are allowed",
  credentials: "a URL may not carry a user name or password",
  link_local_address: "link-local addresses (169.254.0.0/16, fe80::/10) are refused, in any spelling",
  metadata_address: "cloud metadata addresses are refused",
};

/** The one place an address refusal becomes words. */
export const refusalWords = (code) => WORDS[code] ?? code;
