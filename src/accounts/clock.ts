/** Time as the accounts see it; tests inject their own to cross month boundaries. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** The credit period a moment falls in: the calendar month in UTC, e.g. "2026-11". */
export function creditPeriod(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** When the period containing `at` ends and the allowance resets: 00:00 UTC on the 1st of the next month. */
export function nextReset(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
