import { type FaultPoint, type Faults, NO_FAULTS } from "../../policy/faults";

/**
 * The faults of `HOLDFAST_CRASH_AT=<point>`: the process kills itself with SIGKILL the first time it reaches
 * that point. Unset (always, in production) nothing is armed.
 */
export function crashFaults(setting: FaultPoint | undefined): Faults {
  if (!setting) return NO_FAULTS;
  return {
    armed: (point) => point === setting,
    reach(point) {
      if (point === setting) process.kill(process.pid, "SIGKILL");
    },
  };
}
