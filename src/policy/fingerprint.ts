import { createHash } from "node:crypto";

/** JSON with sorted keys and no insignificant whitespace: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** SHA-256 of the canonical JSON: what decides whether a repeated event id carries the same body. */
export const fingerprint = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex");
