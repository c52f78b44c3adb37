/** Expired OAuth rows are swept on SQLite as new ones are written, at most once a minute per process (accounts/oauth-sweep.ts). */
import { expect, it } from 'vitest';
import { OAuthSweep } from '../../src/accounts/oauth-sweep.js';
import type { Store } from '../../src/store/store.js';

it('sweeps every expired oauth: row after a write, then not again within the minute', async () => {
  const swept: string[] = [];
  const store = { sweepExpired: async (prefix: string) => void swept.push(prefix) } as unknown as Store;
  let now = 1_000_000;
  const sweep = new OAuthSweep(store, () => new Date(now));
  await sweep.afterWrite();
  expect(swept).toEqual(['oauth:']);
  now += 59_000;
  await sweep.afterWrite();
  expect(swept).toEqual(['oauth:']);
  now += 1_000;
  await sweep.afterWrite();
  expect(swept).toEqual(['oauth:', 'oauth:']);
});
