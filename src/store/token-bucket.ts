/**
 * Token-bucket arithmetic of the per-minute rate limits: tokens computed from the elapsed time, so
 * the rate is exact. Used by the in-process buckets (accounts/rate.ts) and the embedded store's
 * shared ones (sqlite-rate.ts); the Redis script in redis-store.ts does the same in Lua.
 */
export interface TokenStep {
  allowed: boolean;
  tokens: number;
  msUntilFull: number;
}

export function refill(tokens: number, elapsedMs: number, perMinute: number, burst: number): number {
  return Math.min(burst, tokens + (Math.max(0, elapsedMs) * perMinute) / 60_000);
}

/** A bucket holding `tokens` `elapsedMs` ago: refilled to now, and one token taken if asked and there is one. */
export function stepBucket(tokens: number, elapsedMs: number, perMinute: number, burst: number, take: boolean): TokenStep {
  let now = refill(tokens, elapsedMs, perMinute, burst);
  let allowed = false;
  // The epsilon absorbs float rounding of many small refills (a whole token must not go missing).
  if (take && now >= 1 - 1e-9) {
    now = Math.max(0, now - 1);
    allowed = true;
  }
  return { allowed, tokens: now, msUntilFull: Math.ceil(((burst - now) * 60_000) / perMinute) };
}
