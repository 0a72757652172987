import type { ControlState, HoldLevel } from "../../../policy/control";
import { type EffectiveControl, effectiveControl } from "../../../policy/effective";
import { tenantScope } from "../../../policy/ids";
import type { Db } from "../../../store/connection/client";
import { readControl, type StoredControl } from "../../../store/control/change";
import { userName } from "../../../store/directory/directory";

/** A control record as the API and chat show it: names instead of internal ids, times as ISO text. */
interface RecordView {
  state: ControlState;
  holdLevel: HoldLevel;
  reason: string | null;
  setBy: string | null;
  setAt: string | null;
  until: string | null;
}

/** An agent's record, and what holds its work: its own record or the tenant-wide hold (policy/effective.ts). */
export interface ControlView extends RecordView {
  agent: string;
  effective: EffectiveControl;
}

/** The tenant-wide record as the API shows it. */
export interface TenantView extends RecordView {
  tenant: string;
}

export async function tenantView(db: Db, tenantId: string, control: StoredControl): Promise<TenantView> {
  const { state, holdLevel, reason, setAt, until } = control;
  return {
    tenant: tenantId,
    state,
    holdLevel,
    reason,
    setBy: await userName(db, control.setBy),
    setAt: setAt?.toISOString() ?? null,
    until: until?.toISOString() ?? null,
  };
}

/** A user whose name the caller has at hand (the one who just set the record), so it is not looked up. */
type NamedUser = { id: string; name: string };

const setterName = async (db: Db, setBy: string | null, known?: NamedUser): Promise<string | null> =>
  known && setBy === known.id ? known.name : userName(db, setBy);

/** `tenant`: the tenant's record when the caller already read it; read here otherwise. */
export async function controlView(
  db: Db,
  agent: { name: string; tenantId: string },
  control: StoredControl,
  tenant?: StoredControl | null,
  known?: NamedUser,
): Promise<ControlView> {
  const tenantControl = tenant === undefined ? await readControl(db, tenantScope(agent.tenantId)) : tenant;
  return {
    agent: agent.name,
    state: control.state,
    holdLevel: control.holdLevel,
    reason: control.reason,
    setBy: await setterName(db, control.setBy, known),
    setAt: control.setAt?.toISOString() ?? null,
    until: control.until?.toISOString() ?? null,
    effective: effectiveControl(control, tenantControl),
  };
}
