/** Store.sweepExpired frees the expired rows under a prefix on SQLite (screenshots), and nothing else. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { Db } from '../../src/store/sqlite-db.js';

let store: Store | undefined;
afterAll(() => store?.close());

/** The keys with a row in the file, expired or not, read on a connection of the test's own (the store's is on its thread). */
function rows(s: Store): string[] {
  const db = new Db(s.location);
  try {
    return db.all('SELECT key FROM kv ORDER BY key').map((row) => row.key as string);
  } finally {
    db.close();
  }
}

it('deletes the expired keys of the prefix only', async () => {
  store = await openStore({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-sweep-')) });
  await store.set('screenshot:old', 'x', 1);
  await store.set('screenshot:live', 'y', 60_000);
  await store.set('screenshot;other', 'z', 1);
  await store.set('pages:old', 'w', 1);
  // The 1 ms entries are expired once the clock has moved past them.
  const written = Date.now();
  while (Date.now() <= written + 1) await new Promise((resolve) => setImmediate(resolve));
  await store.sweepExpired('screenshot:');
  expect(rows(store)).toEqual(['pages:old', 'screenshot:live', 'screenshot;other']);
  expect(await store.get('screenshot:live')).toBe('y');
});

it('a write of an expiring key sweeps every expired row, whatever its prefix, at most once a minute', async () => {
  const own = await openStore({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-sweep-')) });
  /** Rows another process wrote, already expired (this store's own expiring writes would start the sweep). */
  const expired = (...keys: string[]) => {
    const db = new Db(own.location);
    try {
      for (const key of keys) db.run('INSERT INTO kv(key, value, expires) VALUES (?, ?, ?)', [key, '"x"', Date.now() - 1_000]);
    } finally {
      db.close();
    }
  };
  try {
    await own.set('job:done', 'x'); // no expiry: never swept
    expired('oauth:pending:a', 'pages:old', 'watch-seen:z');
    // An expiring write starts the sweep; a later write reaches the store's thread after it.
    await own.set('oauth:pending:b', 'q', 60_000);
    await own.set('job:other', 'y');
    expect(rows(own)).toEqual(['job:done', 'job:other', 'oauth:pending:b']);
    // Within the minute, expired rows wait for the next sweep.
    expired('pages:soon');
    await own.set('pages:later', 'z', 60_000);
    await own.set('job:third', 'y');
    expect(rows(own)).toContain('pages:soon');
  } finally {
    await own.close();
  }
});

it('rate buckets idle for a day are deleted (full again, they say nothing a missing row does not)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-sweep-'));
  const day = 24 * 60 * 60_000;
  const t0 = 1_700_000_000_000;
  const own = await openStore({ dataDir: dir });
  try {
    await own.takeToken('addr:203.0.113.7', 10, 30, true, t0);
    await own.takeToken('addr:203.0.113.8', 10, 30, true, t0 + day - 60_000);
    // A minute past the first prune, one more step prunes what has been idle for over a day.
    await own.takeToken('acct:x', 10, 10, true, t0 + day + 60_000);
    const db = new Db(path.join(dir, 'gleaner.rate.sqlite'));
    try {
      expect(db.all('SELECT name FROM buckets ORDER BY name').map((row) => row.name)).toEqual(['acct:x', 'addr:203.0.113.8']);
    } finally {
      db.close();
    }
  } finally {
    await own.close();
  }
});
