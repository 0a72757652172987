import type { ChatRouter } from "../chat/types";
import type { HandlerContext } from "../context";

export interface ConsoleOptions {
  ctx: HandlerContext;
  /** The chat router: the console's resume, chat box and card buttons take the same path as chat. */
  router: ChatRouter;
  /** Shown on the sign-in page (the demo says which keys to use). */
  demoHint?: string;
}
