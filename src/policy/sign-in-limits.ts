/**
 * How much the console's sign-in and its sessions may be used (README "Security"). Sign-in attempts are
 * counted in one-minute windows: every attempt against the address it came from, and each one that named a
 * user (a right key, a live one-time link) against that user too. Past either limit the door answers 429
 * until the window ends, before any key is looked at.
 */
export const SIGN_IN_WINDOW_MS = 60_000;
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 100;
export const SIGN_INS_PER_USER = 20;
/** Open console sessions per user: a new sign-in past this ends that user's oldest session. */
export const SESSIONS_PER_USER = 10;
/** Unused one-time sign-in links per user: a new link past this voids that user's oldest one. */
export const LINKS_PER_USER = 5;

/** The counter's key for an address or a user within the current window. */
export const signInWindowKey = (kind: "address" | "user", who: string, at: Date): string =>
  `sign-in|${kind}|${who}|${Math.floor(at.getTime() / SIGN_IN_WINDOW_MS)}`;

/** Milliseconds until the window `at` falls in ends (the 429's Retry-After, rounded up to seconds there). */
export const signInWindowLeftMs = (at: Date): number => SIGN_IN_WINDOW_MS - (at.getTime() % SIGN_IN_WINDOW_MS);
