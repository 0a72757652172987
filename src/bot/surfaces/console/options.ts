import type { AttemptCounter } from "../../app/auth/sign-in-limits";
import type { HandlerContext } from "../../app/context";
import type { ChatRouter } from "../chat/types";

export interface ConsoleOptions {
  ctx: HandlerContext;
  /** The chat router: the console's chat box is a conversation with the agent, as in chat. */
  router: ChatRouter;
  /** Shown on the sign-in page (the demo says which keys to use). */
  demoHint?: string;
  /** Counts sign-in attempts for the limits (shared by every process when given); default: this process's memory. */
  attempts?: AttemptCounter;
}
