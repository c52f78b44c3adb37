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
