/**
 * The OAuth records callers without a key make (registrations, pending sign-ins) and the codes and tokens
 * expire; Redis drops them itself, SQLite keeps their rows until they are deleted. So each write of such a
 * record is followed, at most once a minute per process, by a sweep of every expired `oauth:` row.
 */
import type { Store } from '../store/store.js';
import { systemClock, type Clock } from './clock.js';

export const OAUTH_PREFIX = 'oauth:';
const SWEEP_EVERY_MS = 60_000;

export class OAuthSweep {
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Sweeps the expired `oauth:` rows unless this process did in the last minute. */
  async afterWrite(): Promise<void> {
    const now = this.clock().getTime();
    if (now - this.last < SWEEP_EVERY_MS) return;
    this.last = now;
    await this.store.sweepExpired(OAUTH_PREFIX);
  }
}
