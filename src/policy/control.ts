import type { Role } from "./roles";
import { roleRank } from "./roles";
import { type ControlState, NOT_RUNNING } from "./states";

export type { ControlState } from "./states";
export type HoldLevel = "none" | Role;

/** The durable pause record of one agent or one tenant, as the rules see it. */
export interface ControlRecord {
  state: ControlState;
  holdLevel: HoldLevel;
  reason: string | null;
  setBy: string | null;
  setAt: Date | null;
  until: Date | null;
}

export const RUNNING_CONTROL: ControlRecord = {
  state: "RUNNING",
  holdLevel: "none",
  reason: null,
  setBy: null,
  setAt: null,
  until: null,
};

export const holdRank = (level: HoldLevel): number => (level === "none" ? 0 : roleRank(level));

export const isPausedState = (state: ControlState): boolean => NOT_RUNNING.includes(state);
