import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/accounts/rate.js';
import { PLANS, type PlanName } from '../../src/accounts/plans.js';

/** Drives one key at a steady pace for a minute of injected time; counts what got through. */
async function passedInAMinute(plan: PlanName, attemptsPerSecond: number): Promise<number> {
  let now = 1_700_000_000_000;
  const limiter = new RateLimiter({ clock: () => new Date(now) });
  const burst = PLANS[plan].burst!;
  // Spend the burst first, so what passes afterwards is the refill alone.
  for (let i = 0; i < burst; i++) await limiter.take('acct', plan);
  let passed = 0;
  const step = 1000 / attemptsPerSecond;
  for (let i = 1; i <= 60 * attemptsPerSecond; i++) {
    now += step;
    try {
      await limiter.take('acct', plan);
      passed++;
    } catch {
      // refused: the bucket was empty at that moment
    }
  }
  return passed;
}

describe('token buckets refill at exactly the plan rate', () => {
  for (const plan of ['Free', 'Basic', 'Pro', 'Mega', 'Giga', 'Apex'] as const) {
    it(`${plan}: ${PLANS[plan].ratePerMinute} a minute after the burst, within 2%`, async () => {
      const rate = PLANS[plan].ratePerMinute!;
      const passed = await passedInAMinute(plan, 50);
      expect(Math.abs(passed - rate) / rate).toBeLessThanOrEqual(0.02);
    });
  }

  it('refuses at once with Retry-After, and the headers report the bucket', async () => {
    let now = 0;
    const limiter = new RateLimiter({ clock: () => new Date(now) });
    for (let i = 0; i < 10; i++) expect((await limiter.take('a', 'Free')).remaining).toBe(9 - i);
    await expect(limiter.take('a', 'Free')).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', headers: { 'Retry-After': '6' } });
    now += 6_000;
    expect((await limiter.take('a', 'Free')).remaining).toBe(0);
  });
});
