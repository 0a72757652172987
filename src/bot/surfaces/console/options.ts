import type { HandlerContext } from "../../app/context";
import type { ChatRouter } from "../chat/types";

export interface ConsoleOptions {
  ctx: HandlerContext;
  /** The chat router: the console's resume, chat box and card buttons take the same path as chat. */
  router: ChatRouter;
  /** Shown on the sign-in page (the demo says which keys to use). */
  demoHint?: string;
}
