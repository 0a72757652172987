import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json";

/** SHA-256 of the canonical JSON: what decides whether a repeated event id carries the same body. */
export const fingerprint = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex");
