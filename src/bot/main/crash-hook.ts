import type { Logger } from "pino";
import { type FaultPoint, type Faults, NO_FAULTS } from "../../policy/faults";

/** The message a driver waits for at a pause point (the chaos suite, test/chaos). */
export const PAUSE_POINT_REACHED = "test pause point reached";

/**
 * The faults of `HOLDFAST_CRASH_AT=<point>` (the process kills itself with SIGKILL the first time it reaches
 * that point) and `HOLDFAST_PAUSE_AT=<point>` (it logs PAUSE_POINT_REACHED once and hangs there, for a driver's
 * SIGKILL or SIGTERM). Unset (always, in production) nothing is armed.
 */
export function crashFaults(crashAt: FaultPoint | undefined, pauseAt?: FaultPoint, log?: Logger): Faults {
  if (!crashAt && !pauseAt) return NO_FAULTS;
  let said = false;
  return {
    armed: (point) => point === crashAt || point === pauseAt,
    reach(point) {
      if (point === crashAt) process.kill(process.pid, "SIGKILL");
    },
    pausing: (point) => point === pauseAt,
    halt(point) {
      if (point !== pauseAt) return Promise.resolve();
      if (!said) log?.warn({ pausePoint: point, pid: process.pid }, PAUSE_POINT_REACHED);
      said = true;
      return new Promise(() => {});
    },
  };
}
