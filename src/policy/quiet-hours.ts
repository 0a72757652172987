/** A daily window in a time zone ("22:00" to "07:00" may cross midnight) in which no ping goes out. */
export interface QuietHours {
  tz: string;
  from: string;
  to: string;
}

const MINUTES_PER_DAY = 24 * 60;

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(":").map(Number);
  return h! * 60 + m!;
};

/** A valid "HH:MM" (24-hour clock). */
export const isClockTime = (text: string): boolean => /^([01]\d|2[0-3]):[0-5]\d$/.test(text);

/** The local wall clock at `at` in `tz`, as minutes and seconds since local midnight. */
function localClock(tz: string, at: Date): { minutes: number; seconds: number } {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: tz,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { minutes: part("hour") * 60 + part("minute"), seconds: part("second") };
}

export function inQuietHours(quiet: QuietHours, at: Date): boolean {
  const from = minutesOf(quiet.from);
  const to = minutesOf(quiet.to);
  if (from === to) return false;
  const { minutes } = localClock(quiet.tz, at);
  return from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
}

/**
 * The first moment at or after `at` outside the window: `at` itself when it is outside, otherwise the
 * window's end ("07:00" local). Across a DST change the end may be off by the change; a ping an hour late
 * in the quiet night is the acceptable side.
 */
export function afterQuietHours(quiet: QuietHours | null, at: Date): Date {
  if (!quiet || !inQuietHours(quiet, at)) return at;
  const { minutes, seconds } = localClock(quiet.tz, at);
  const untilEnd = (minutesOf(quiet.to) - minutes + MINUTES_PER_DAY) % MINUTES_PER_DAY;
  const end = at.getTime() - (at.getTime() % 1000) + (untilEnd * 60 - seconds) * 1000;
  return new Date(end);
}
