import crypto from "node:crypto";
import { canonicalJson } from "./canonical-json";

/** `sha256:` + the lowercase hex SHA-256 of the UTF-8 bytes of the canonical encoding (canonical-json.ts). */
export function packetDigest(packet: unknown): string {
  return `sha256:${crypto.createHash("sha256").update(canonicalJson(packet), "utf8").digest("hex")}`;
}
