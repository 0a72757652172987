import { z } from "zod";

/**
 * Ids that end up in a request header (an event id, a run id, a trigger key, an action's operation: each is
 * part of an `Idempotency-Key` or `webhook-id`) are printable ASCII only: no CR/LF or other control
 * character, nothing beyond ASCII, no space at either end. HTTP cannot carry anything else in a header, so an
 * id outside this rule could be stored but never sent. One rule for every door (the HTTP API and MCP share
 * the schema below) and for the delivery step, which settles a stored key outside it at once.
 */
const PRINTABLE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export const HEADER_SAFE_RULE = "printable ASCII only (no control characters, no characters beyond ASCII)";

export const isHeaderSafe = (value: string): boolean => PRINTABLE_ASCII.test(value);

/** A string schema for such an id, up to `max` characters; a 400 at the door names the field and this rule. */
export const headerSafeId = (max = 200) => z.string().min(1).max(max).refine(isHeaderSafe, HEADER_SAFE_RULE);
