import crypto from "node:crypto";
import fs from "node:fs";

/** API keys are stored and compared as SHA-256 digests; the key itself is never kept or logged. */
export const hashKey = (key: string): string => crypto.createHash("sha256").update(key, "utf8").digest("hex");

/** Reads a secret from `NAME` or from the file named by `NAME_FILE`. */
export function secretFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const inline = env[name];
  if (inline) return inline;
  const file = env[`${name}_FILE`];
  return file ? fs.readFileSync(file, "utf8").trim() : undefined;
}
