/**
 * The embedded store's rate buckets are shared by every process on one data directory, as Redis's
 * are (DESIGN.md): two stores opened on one directory (a second thread and connection, as another
 * process has) together let a key through at its plan's rate, not twice it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { RateLimiter } from '../../src/accounts/rate.js';
import { PLANS } from '../../src/accounts/plans.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function open(dataDir: string): Promise<Store> {
  const store = await openStore({ dataDir });
  opened.push(store);
  return store;
}

const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-rate-'));

async function allowed(limiter: RateLimiter): Promise<boolean> {
  try {
    await limiter.take('acct', 'Free');
    return true;
  } catch (error) {
    expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    return false;
  }
}

describe('the embedded store shares each key’s rate bucket between processes', { timeout: 60_000 }, () => {
  it(`two stores on one directory let a Free key through ${PLANS.Free.burst} times at once, not twice that`, async () => {
    const dir = dataDir();
    const now = 1_700_000_000_000;
    const clock = () => new Date(now);
    const sides = [new RateLimiter({ store: await open(dir), clock }), new RateLimiter({ store: await open(dir), clock })];
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => allowed(sides[i % 2]!)));
    expect(results.filter(Boolean).length).toBe(PLANS.Free.burst);
    // What one side took, the other sees.
    expect((await sides[1]!.peek('acct', 'Free')).remaining).toBe(0);
  });

  it('a rate file that cannot be read is made anew (its buckets are all it held)', async () => {
    const dir = dataDir();
    fs.writeFileSync(path.join(dir, 'gleaner.rate.sqlite'), 'not a database, from a power cut mid-write'.repeat(200));
    const limiter = new RateLimiter({ store: await open(dir), clock: () => new Date(0) });
    expect((await limiter.take('acct', 'Free')).remaining).toBe(PLANS.Free.burst! - 1);
  });
});
