import type { ControlState, HoldLevel } from "../../policy/control";
import type { Db } from "../../store/client";
import type { StoredControl } from "../../store/control";
import { userName } from "../../store/directory";

/** The control record as the API and chat show it: names instead of internal ids. */
export interface ControlView {
  agent: string;
  state: ControlState;
  holdLevel: HoldLevel;
  reason: string | null;
  setBy: string | null;
  setAt: string | null;
  until: string | null;
}

export async function controlView(db: Db, agentName: string, control: StoredControl): Promise<ControlView> {
  return {
    agent: agentName,
    state: control.state,
    holdLevel: control.holdLevel,
    reason: control.reason,
    setBy: await userName(db, control.setBy),
    setAt: control.setAt?.toISOString() ?? null,
    until: control.until?.toISOString() ?? null,
  };
}
