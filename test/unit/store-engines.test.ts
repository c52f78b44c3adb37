/**
 * The embedded store on each SQLite engine it can use, behind the same interface: node:sqlite (WAL)
 * where the runtime has it (Node 22.13+; skipped on Node 20), and node-sqlite3-wasm everywhere.
 * The store runs on its own thread; these check what the ledger promises through that boundary.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, StoreFileError, type Store } from '../../src/store/store.js';
import { Accounts } from '../../src/accounts/accounts.js';
import { nodeSqliteAvailable, openDb, type SqliteEngine } from '../../src/store/sqlite-db.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function open(engine: SqliteEngine, dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-engine-'))): Promise<Store> {
  const store = await openStore({ dataDir, sqliteEngine: engine });
  opened.push(store);
  return store;
}

const engines: { engine: SqliteEngine; available: boolean }[] = [
  { engine: 'wasm', available: true },
  { engine: 'node', available: nodeSqliteAvailable() },
];

describe.each(engines)('the SQLite store on the $engine engine', { timeout: 60_000 }, ({ engine, available }) => {
  it.skipIf(!available)('says which engine it runs, and keeps values and keys', async () => {
    const store = await open(engine);
    expect(store.sqliteEngine).toBe(engine);
    await store.set('a', { n: 1 });
    expect(await store.get('a')).toEqual({ n: 1 });
    const accounts = new Accounts(store);
    const { account, apiKey } = await accounts.create({ plan: 'Free' });
    expect((await accounts.authenticate(apiKey)).id).toBe(account.id);
    await expect(accounts.authenticate('gl_unknown')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // A read right after a write sees it (the node engine reads on a connection of its own).
    await store.update<number, void>('counter', (n = 0) => ({ value: n + 1, result: undefined }));
    expect(await store.get('counter')).toBe(1);
  });

  it.skipIf(!available)('300 concurrent 1-credit reservations on 100 credits: exactly 100, kept and counted', async () => {
    const store = await open(engine);
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 100 });
    const results = await Promise.allSettled(Array.from({ length: 300 }, () => accounts.reserve(account.id, 1)));
    const held = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.reservation] : []));
    expect(held).toHaveLength(100);
    expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason.code === 'CREDITS_EXHAUSTED')).toBe(true);
    await Promise.all(held.map((reservation) => accounts.keep(reservation)));
    expect((await accounts.balance(account)).used).toBe(100);
    expect(await store.ledger.reservations()).toHaveLength(0);
  });

  it.skipIf(!available)('a plan changed between two charges: the second sees the new allowance', async () => {
    const store = await open(engine);
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Free' });
    await accounts.reserve(account.id, 100);
    await expect(accounts.reserve(account.id, 1)).rejects.toMatchObject({ code: 'CREDITS_EXHAUSTED' });
    await accounts.setPlan(account.id, 'Basic');
    const { balance } = await accounts.reserve(account.id, 1);
    expect(balance.allowance).toBe(300);
    expect(balance.used).toBe(101);
    // And back down: the allowance the ledger checks is the record's, not one remembered.
    await accounts.setPlan(account.id, 'Free');
    await expect(accounts.reserve(account.id, 1)).rejects.toMatchObject({ code: 'CREDITS_EXHAUSTED' });
  });

  it.skipIf(!available)('settles to the actual cost and returns what was over-reserved', async () => {
    const store = await open(engine);
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Free' });
    const { reservation } = await accounts.reserve(account.id, 5);
    const { charged, balance } = await accounts.settle(reservation, 2);
    expect(charged).toBe(2);
    expect(balance.used).toBe(2);
    expect((await accounts.settle(reservation, 2)).charged, 'settling twice charges nothing more').toBe(0);
  });

  it.skipIf(!available)('a second store on the same file sees the first one’s charges', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-engine-'));
    const first = await open(engine, dataDir);
    const second = await open(engine, dataDir);
    // Two processes' worth of Accounts, each with its heartbeat (without one, a sweep returns the other's reservations).
    const sides = [new Accounts(first), new Accounts(second)];
    await Promise.all(sides.map((side) => side.start()));
    try {
      const { account } = await sides[0]!.create({ plan: 'Enterprise', monthlyCredits: 10 });
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => sides[i % 2]!.reserve(account.id, 1)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
      expect((await sides[1]!.balance(account)).used).toBe(10);
    } finally {
      for (const side of sides) side.stop();
    }
  });
});

describe('the node engine: reserves committed without an fsync, keeps with one', { timeout: 60_000 }, () => {
  it.skipIf(!nodeSqliteAvailable())('a reservation is in the file for every connection once reserve() returns, and a kept charge survives a reopen', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-engine-'));
    const store = await open('node', dataDir);
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 1_000 });
    const held = await Promise.all(Array.from({ length: 20 }, () => accounts.reserve(account.id, 1)));
    // Another connection (as another process would open): the reserves are committed, not only answered.
    const other = openDb(path.join(dataDir, 'gleaner.sqlite'), 'node');
    try {
      expect(other.all('SELECT COUNT(*) AS n FROM reservations')[0]!.n).toBe(20);
      expect(other.all('SELECT used FROM usage WHERE account = ?', [account.id])[0]!.used).toBe(20);
    } finally {
      other.close();
    }
    await Promise.all(held.map(({ reservation }) => accounts.keep(reservation)));
    await store.close();
    opened.splice(opened.indexOf(store), 1);
    const again = await open('node', dataDir);
    expect((await new Accounts(again).balance(account)).used).toBe(20);
    expect(await again.ledger.reservations()).toHaveLength(0);
  });
});

describe('a store written by node:sqlite, opened by the wasm engine', { timeout: 60_000 }, () => {
  it.skipIf(!nodeSqliteAvailable())('is refused naming the file and why (the wasm engine cannot read WAL)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-engine-'));
    const store = await openStore({ dataDir, sqliteEngine: 'node' });
    await store.close();
    const failure = await openStore({ dataDir, sqliteEngine: 'wasm' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreFileError);
    expect((failure as Error).message).toContain(path.join(dataDir, 'gleaner.sqlite'));
    expect((failure as Error).message).toContain('WAL');
  });
});
