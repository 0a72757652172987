import type { KeyObject } from "node:crypto";

export function signatureHeaders(
  key: KeyObject | Buffer,
  id: string,
  timestampSeconds: number,
  body: string,
): { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };
