/**
 * A fixed test time on a day still to come: two days after today (UTC) at the given hour. Tests with an
 * injected clock mix it with times the database sets itself (`@default(now())`), so the injected time must
 * never fall behind the real one; a literal date would turn such a test red once that date has passed.
 */
export function comingDay(hourUtc: number, minute = 0): Date {
  const day = new Date();
  day.setUTCDate(day.getUTCDate() + 2);
  day.setUTCHours(hourUtc, minute, 0, 0);
  return day;
}
