import type { ListResult } from "../../app/lists/operator-lists";
import { ApiError } from "../http/errors";

/** A list handler's page; a console request never makes a bad cursor or names a missing agent. */
export function itemsOf<T>(result: ListResult<T>): T[] {
  if (result.kind !== "page") throw new ApiError("not_found", result.message);
  return result.items;
}
