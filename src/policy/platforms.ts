/**
 * The chat platforms a person can be reached on, one list for every layer. "web" is the console's chat box, an
 * identity `web:<tenant>:<user>` (the console session's user).
 */
export type Platform = "slack" | "discord" | "telegram" | "web";
