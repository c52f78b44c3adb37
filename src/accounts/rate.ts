/**
 * Per-key request rate: a token bucket refilled at the plan's rate and holding up to its burst,
 * built on Bottleneck's reservoir. A caller with no token is refused at once (429), never queued:
 * highWater 0 with the OVERFLOW strategy drops any job that would have to wait.
 */
import Bottleneck from 'bottleneck';
import { GleanerError } from '../errors.js';
import { PLANS, type PlanName } from './plans.js';

export interface RateStatus {
  /** Requests a minute; null when unlimited. */
  limit: number | null;
  remaining: number | null;
  /** Unix seconds when the bucket is full again. */
  reset: number;
}

interface Bucket {
  limiter: Bottleneck;
  plan: PlanName;
  rate: number;
  burst: number;
  intervalMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** Takes one token for the key or throws RATE_LIMIT_EXCEEDED with the seconds to wait. */
  async take(accountId: string, plan: PlanName): Promise<RateStatus> {
    const bucket = this.bucketFor(accountId, plan);
    if (!bucket) return { limit: null, remaining: null, reset: Math.ceil(Date.now() / 1000) };
    try {
      await bucket.limiter.schedule({ expiration: 1_000 }, async () => undefined);
    } catch (error) {
      if (!(error instanceof Bottleneck.BottleneckError)) throw error;
      const retryAfter = Math.max(1, Math.ceil(bucket.intervalMs / 1000));
      throw new GleanerError(
        'RATE_LIMIT_EXCEEDED',
        `Too many requests: the ${plan} plan allows ${bucket.rate} requests a minute (bursts of ${bucket.burst}). Retry in ${retryAfter} s.`,
        {
          headers: {
            'Retry-After': String(retryAfter),
            'X-RateLimit-Limit': String(bucket.rate),
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(Math.ceil((Date.now() + retryAfter * 1000) / 1000)),
          },
        },
      );
    }
    return this.statusOf(bucket);
  }

  /** The bucket's figures without taking a token. */
  async peek(accountId: string, plan: PlanName): Promise<RateStatus> {
    const bucket = this.bucketFor(accountId, plan);
    if (!bucket) return { limit: null, remaining: null, reset: Math.ceil(Date.now() / 1000) };
    return this.statusOf(bucket);
  }

  async close(): Promise<void> {
    await Promise.all([...this.buckets.values()].map((b) => b.limiter.disconnect()));
    this.buckets.clear();
  }

  private async statusOf(bucket: Bucket): Promise<RateStatus> {
    const remaining = (await bucket.limiter.currentReservoir()) ?? bucket.burst;
    const missing = bucket.burst - remaining;
    return { limit: bucket.rate, remaining, reset: Math.ceil((Date.now() + missing * bucket.intervalMs) / 1000) };
  }

  private bucketFor(accountId: string, plan: PlanName): Bucket | undefined {
    const { ratePerMinute: rate, burst } = PLANS[plan];
    if (rate === null || burst === null) return undefined;
    const existing = this.buckets.get(accountId);
    if (existing && existing.plan === plan) return existing;
    if (existing) void existing.limiter.disconnect();
    const intervalMs = 60_000 / rate;
    const limiter = new Bottleneck({
      reservoir: burst,
      reservoirIncreaseAmount: 1,
      reservoirIncreaseInterval: intervalMs,
      reservoirIncreaseMaximum: burst,
      highWater: 0,
      strategy: Bottleneck.strategy.OVERFLOW,
    });
    const bucket = { limiter, plan, rate, burst, intervalMs };
    this.buckets.set(accountId, bucket);
    return bucket;
  }
}
