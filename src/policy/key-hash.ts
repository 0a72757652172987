import crypto from "node:crypto";

/** API keys are stored and compared as SHA-256 digests; the key itself is never kept or logged. */
export const hashKey = (key: string): string => crypto.createHash("sha256").update(key, "utf8").digest("hex");
