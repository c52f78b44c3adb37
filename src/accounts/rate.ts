/**
 * Per-key request rate: a token bucket holding up to the plan's burst and refilled continuously at
 * the plan's rate (tokens computed from the elapsed time, so the rate is exact: Bottleneck's
 * reservoir refill rounded every interval up to its 250 ms heartbeat, which gave Pro 79 a minute
 * instead of 100). A caller with no token is refused at once (429), never queued.
 * Shared by every process on the store: on Redis one Lua script, on the embedded store a file of its
 * own next to it (store/sqlite-rate.ts). Without a store (tests), in this process's memory.
 */
import { GleanerError } from '../errors.js';
import { PLANS, type PlanName } from './plans.js';
import type { Store } from '../store/store.js';
import { systemClock, type Clock } from './clock.js';
import { stepBucket, type TokenStep } from '../store/token-bucket.js';

export interface RateStatus {
  /** Requests a minute; null when unlimited. */
  limit: number | null;
  remaining: number | null;
  /** Unix seconds when the bucket is full again. */
  reset: number;
}

interface LocalBucket {
  plan: PlanName;
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, LocalBucket>();

  constructor(
    /** `store`: its buckets are shared by every process on it; none keeps them in this process. */
    private readonly options: { store?: Store; clock?: Clock } = {},
  ) {}

  /**
   * Takes one token for the key or throws RATE_LIMIT_EXCEEDED with the seconds to wait. A `scale`
   * other than 1 takes from a bucket of its own, `scale` times the plan's rate and burst.
   */
  async take(accountId: string, plan: PlanName, scale = 1): Promise<RateStatus> {
    return this.step(accountId, plan, true, scale);
  }

  /** The bucket's figures without taking a token. */
  async peek(accountId: string, plan: PlanName): Promise<RateStatus> {
    return this.step(accountId, plan, false);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }

  private now(): number {
    return (this.options.clock ?? systemClock)().getTime();
  }

  private async step(accountId: string, plan: PlanName, take: boolean, scale = 1): Promise<RateStatus> {
    const { ratePerMinute: planRate, burst: planBurst } = PLANS[plan];
    const now = this.now();
    if (planRate === null || planBurst === null) return { limit: null, remaining: null, reset: Math.ceil(now / 1000) };
    const [rate, burst] = [planRate * scale, planBurst * scale];
    // A plan change starts a fresh bucket (the key name carries the plan).
    const key = scale === 1 ? `${accountId}:${plan}` : `${accountId}:${plan}:x${scale}`;
    const store = this.options.store;
    const result = store ? await store.guard(() => store.takeToken(key, rate, burst, take, now)) : this.local(key, plan, rate, burst, take, now);
    if (take && !result.allowed) {
      const retryAfter = Math.max(1, Math.ceil(((1 - result.tokens) * 60_000) / rate / 1000));
      throw new GleanerError(
        'RATE_LIMIT_EXCEEDED',
        `Too many requests: the ${plan} plan allows ${rate} requests a minute (bursts of ${burst}). Retry in ${retryAfter} s.`,
        {
          headers: {
            'Retry-After': String(retryAfter),
            'X-RateLimit-Limit': String(rate),
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(Math.ceil((now + result.msUntilFull) / 1000)),
          },
        },
      );
    }
    return { limit: rate, remaining: Math.floor(result.tokens), reset: Math.ceil((now + result.msUntilFull) / 1000) };
  }

  private local(accountId: string, plan: PlanName, rate: number, burst: number, take: boolean, now: number): TokenStep {
    let bucket = this.buckets.get(accountId);
    if (!bucket || bucket.plan !== plan) {
      bucket = { plan, tokens: burst, at: now };
      this.buckets.set(accountId, bucket);
    }
    const step = stepBucket(bucket.tokens, now - bucket.at, rate, burst, take);
    bucket.tokens = step.tokens;
    bucket.at = now;
    return step;
  }
}
