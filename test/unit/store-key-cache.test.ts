/**
 * The wasm engine's key cache (src/store/sqlite-key-cache.ts): a key lookup repeated while the file
 * shows only this store's own commits is answered without the store's thread, and any change another
 * connection committed before a lookup began (a `keys revoke` that has returned) is seen by it.
 * The second store here has a thread and a connection of its own on the same file, as another
 * process has; test/processes/store-processes.test.ts does the same with the real CLI in a process of its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { countThreadSteps } from '../support/thread-steps.js';
import { Accounts } from '../../src/accounts/accounts.js';

const opened: Store[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of opened.splice(0)) await store.close();
});

async function open(dataDir: string): Promise<Store> {
  const store = await openStore({ dataDir, sqliteEngine: 'wasm' });
  opened.push(store);
  return store;
}

const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-key-cache-'));

describe('the wasm engine answers key lookups from a cache checked against the file', { timeout: 120_000 }, () => {
  it('a repeated lookup, with this store committing charges in between, does not wait for the store’s thread', async () => {
    const store = await open(dataDir());
    const accounts = new Accounts(store);
    const { account, apiKey } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 1_000 });
    await accounts.authenticate(apiKey);
    const steps = countThreadSteps();
    for (let i = 0; i < 20; i++) {
      expect((await accounts.authenticate(apiKey)).id).toBe(account.id);
      // This store's own commits change the file's counter: they must not empty the cache.
      const { reservation } = await accounts.reserve(account.id, 1);
      await accounts.keep(reservation);
    }
    expect(steps.get('getPair') ?? 0).toBe(0);
    expect(steps.get('keep')).toBe(20);
  });

  it('a revoke or a plan change committed by another connection is seen by the next lookup, under this store’s traffic', async () => {
    const dir = dataDir();
    const store = await open(dir);
    const other = await open(dir);
    const accounts = new Accounts(store);
    const elsewhere = new Accounts(other);
    for (let round = 0; round < 10; round++) {
      const { account, apiKey } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 100_000 });
      expect((await accounts.authenticate(apiKey)).plan).toBe('Enterprise');
      // This store keeps committing charges while the other connection changes the key.
      let stop = false;
      const traffic = Promise.all(
        Array.from({ length: 4 }, async () => {
          while (!stop) {
            const { reservation } = await accounts.reserve(account.id, 1);
            await accounts.keep(reservation);
            await accounts.authenticate(apiKey).catch(() => undefined);
          }
        }),
      );
      await elsewhere.setPlan(account.id, 'Apex');
      expect((await accounts.authenticate(apiKey)).plan, `round ${round}: the plan changed elsewhere`).toBe('Apex');
      await elsewhere.revoke(account.id);
      await expect(accounts.authenticate(apiKey), `round ${round}: revoked elsewhere`).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      stop = true;
      await traffic;
    }
  });

  it('this store’s own revoke is seen by its next lookup', async () => {
    const store = await open(dataDir());
    const accounts = new Accounts(store);
    const { account, apiKey } = await accounts.create({ plan: 'Free' });
    await accounts.authenticate(apiKey);
    await accounts.authenticate(apiKey);
    await accounts.revoke(account.id);
    await expect(accounts.authenticate(apiKey)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
