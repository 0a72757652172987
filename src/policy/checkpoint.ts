/** A requested move of a run's named checkpoint (design.md section 4, issue 3). */
export type CheckpointVerdict = { ok: true; create: boolean } | { ok: false; code: "invalid_transition"; why: string };

/**
 * A run moves through its agent's declared sequence one step at a time. A new run starts at the first
 * checkpoint; after that, only the checkpoint right after the current one is accepted. Skipping ahead,
 * repeating the current one or going back is `invalid_transition`, so an agent resuming after a pause reads
 * a position it can trust.
 */
export function decideCheckpoint(sequence: readonly string[], current: string | null, next: string): CheckpointVerdict {
  if (sequence.length === 0) return refuse("the agent declares no checkpoint sequence");
  const at = sequence.indexOf(next);
  if (at < 0) return refuse(`'${next}' is not one of ${sequence.join(", ")}`);
  if (current === null) {
    return at === 0 ? { ok: true, create: true } : refuse(`a new run starts at ${sequence[0]}, not ${next}`);
  }
  const from = sequence.indexOf(current);
  if (at === from + 1) return { ok: true, create: false };
  if (at === from) return refuse(`the run is already at ${current}`);
  return refuse(`the run is at ${current}; the next checkpoint is ${sequence[from + 1] ?? "none (completed)"}`);
}

const refuse = (why: string): CheckpointVerdict => ({ ok: false, code: "invalid_transition", why });
