/**
 * What callers without a key may do, bounded per client address: register OAuth clients, open sign-in
 * pages (each writes a record to the store), and fail to present a valid key (on the console's and the
 * OAuth sign-in forms). One token bucket per action and address, shared by every process on the store
 * like the keys' rate buckets. The address is a bounded key: an IPv4 address, or the /64 an IPv6 one is
 * in (one host's share of a network), so neither its length nor a host's many addresses widen it.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { GleanerError } from '../errors.js';
import type { Store } from '../store/store.js';
import { systemClock, type Clock } from './clock.js';

export type ThrottledAction = 'oauth-register' | 'oauth-sign-in-page' | 'key-failure';

interface Limit {
  perMinute: number;
  burst: number;
  /** What the 429 says was done too often. */
  what: string;
}

/**
 * A client registers once per install; a person opens a few sign-in pages; a person mistypes a key a few
 * times. The bounds leave that alone and cap what one address writes: about 500 registrations a day
 * (they expire after a day) and 150 pending sign-ins (they expire after 15 minutes).
 */
export const ADDRESS_LIMITS: Record<ThrottledAction, Limit> = {
  'oauth-register': { perMinute: 1 / 3, burst: 20, what: 'client registrations' },
  'oauth-sign-in-page': { perMinute: 10, burst: 30, what: 'sign-in pages' },
  'key-failure': { perMinute: 5, burst: 10, what: 'attempts with a key that is not valid' },
};

/** The bucket an address falls in: IPv4 as it is (also when mapped into IPv6), IPv6 by its /64. */
export function addressBucket(address: string | undefined): string {
  const plain = address?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '') ?? '';
  if (isIPv4(plain)) return plain;
  if (isIPv6(plain)) return `${expandIPv6(plain).slice(0, 4).join(':')}::/64`;
  return 'unknown';
}

function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.map((group) => (group.includes('.') ? group : group.toLowerCase().replace(/^0+(?=.)/, '')));
}

export class AddressThrottle {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Takes one token for `action` from `address`'s bucket, or throws RATE_LIMIT_EXCEEDED (429, Retry-After). */
  async take(action: ThrottledAction, address: string | undefined): Promise<void> {
    const refusal = await this.refusal(action, address, true);
    if (refusal) throw refusal;
  }

  /**
   * The 429 for `action` from `address` when its bucket is empty, else undefined; `take` takes a token
   * (a write about to happen, a wrong key just presented), without it nothing is taken (a key about to be tried).
   */
  async refusal(action: ThrottledAction, address: string | undefined, take: boolean): Promise<GleanerError | undefined> {
    const limit = ADDRESS_LIMITS[action];
    const now = this.clock().getTime();
    const bucket = `address:${action}:${addressBucket(address)}`;
    const step = await this.store.guard(() => this.store.takeToken(bucket, limit.perMinute, limit.burst, take, now));
    if (take ? step.allowed : step.tokens >= 1 - 1e-9) return undefined;
    const retryAfter = Math.max(1, Math.ceil(((1 - step.tokens) * 60) / limit.perMinute));
    return new GleanerError('RATE_LIMIT_EXCEEDED', `Too many ${limit.what} from this address: try again in ${retryAfter} s.`, { headers: { 'Retry-After': String(retryAfter) } });
  }
}
