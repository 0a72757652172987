/** The due time a job scheduler's job stands for: its id ends with the scheduled millis. */
export function scheduledMillis(job: { id?: string; timestamp: number; delay: number }): number {
  const tail = job.id?.split(":").pop();
  const millis = tail ? Number(tail) : Number.NaN;
  return Number.isFinite(millis) && millis > 0 ? millis : job.timestamp + job.delay;
}
