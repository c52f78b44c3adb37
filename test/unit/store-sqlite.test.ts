/**
 * The embedded store (node-sqlite3-wasm on every Node, on its own thread): what the ledger promises
 * through that boundary, and what it does with a file an earlier Gleaner left in WAL mode on Node 22+.
 * Runs on Node 20 and, in CI, on 22 and 24: the WAL cases take the node:sqlite path where it exists.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, StoreFileError, type Store } from '../../src/store/store.js';
import { Accounts } from '../../src/accounts/accounts.js';
import { Db, type Row } from '../../src/store/sqlite-db.js';
import { retryBusy } from '../../src/store/sqlite-lock.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** One query on a connection of the test's own, as another process would make it: waiting while the store's thread holds the lock. */
async function readFile(file: string, sql: string, values: (string | number)[] = []): Promise<Row[]> {
  const db = new Db(file);
  try {
    let rows: Row[] = [];
    await retryBusy(file, () => (rows = db.all(sql, values)));
    return rows;
  } finally {
    db.close();
  }
}

const freshDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-sqlite-'));

async function open(dataDir = freshDir()): Promise<Store> {
  const store = await openStore({ dataDir });
  opened.push(store);
  return store;
}

describe('the SQLite store', { timeout: 60_000 }, () => {
  it('keeps values and keys, and a read right after a write sees it', async () => {
    const store = await open();
    await store.set('a', { n: 1 });
    expect(await store.get('a')).toEqual({ n: 1 });
    const accounts = new Accounts(store);
    const { account, apiKey } = await accounts.create({ plan: 'Free' });
    expect((await accounts.authenticate(apiKey)).id).toBe(account.id);
    await expect(accounts.authenticate('gl_unknown')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await store.update<number, void>('counter', (n = 0) => ({ value: n + 1, result: undefined }));
    expect(await store.get('counter')).toBe(1);
  });

  it('300 concurrent 1-credit reservations on 100 credits: exactly 100, kept and counted', async () => {
    const store = await open();
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

  it('a plan without a monthly limit (Enterprise, no credits of its own) is never refused for credits', async () => {
    const store = await open();
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Enterprise' });
    const { reservation, balance } = await accounts.reserve(account.id, 1_000_000);
    expect(balance.allowance).toBeNull();
    await accounts.keep(reservation);
    await accounts.keep((await accounts.reserve(account.id, 1)).reservation);
    expect((await accounts.balance(account)).used).toBe(1_000_001);
  });

  it('a plan changed between two charges: the second sees the new allowance', async () => {
    const store = await open();
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

  it('settles to the actual cost, returns what was over-reserved, and adds to a reservation', async () => {
    const store = await open();
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Free' });
    const { reservation } = await accounts.reserve(account.id, 5);
    const { reservation: grown } = await accounts.reserve(account.id, 3, reservation);
    expect(grown.amount).toBe(8);
    const { charged, balance } = await accounts.settle(grown, 2);
    expect(charged).toBe(2);
    expect(balance.used).toBe(2);
    expect((await accounts.settle(grown, 2)).charged, 'settling twice charges nothing more').toBe(0);
  });

  it('a second store on the same file (another process) sees the first one’s charges, and together they never overspend', async () => {
    const dataDir = freshDir();
    const first = await open(dataDir);
    const second = await open(dataDir);
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

  it('a kept charge is in the file once keep() returns: another connection reads it', async () => {
    const dataDir = freshDir();
    const store = await open(dataDir);
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 1_000 });
    const held = await Promise.all(Array.from({ length: 20 }, () => accounts.reserve(account.id, 1)));
    await Promise.all(held.map(({ reservation }) => accounts.keep(reservation)));
    expect((await readFile(store.location, 'SELECT used FROM usage WHERE account = ?', [account.id]))[0]!.used).toBe(20);
    expect((await readFile(store.location, 'SELECT COUNT(*) AS n FROM reservations'))[0]!.n).toBe(0);
    expect(fs.readFileSync(store.location)[18], 'the header says rollback journal').toBe(1);
  });

  it('a reserve and its keep, sent while a write waits for its commit, share that one commit', async () => {
    const store = await open();
    const accounts = new Accounts(store);
    const { account } = await accounts.create({ plan: 'Free' });
    // The file change counter (header offset 24) goes up by one for each commit that wrote.
    const commits = () => fs.readFileSync(store.location).readUInt32BE(24);
    const before = commits();
    const write = store.set('elsewhere', 1);
    const { reservation } = await accounts.reserve(account.id, 1);
    await accounts.keep(reservation);
    await write;
    expect(commits() - before).toBe(1);
    expect((await readFile(store.location, 'SELECT used FROM usage WHERE account = ?', [account.id]))[0]!.used).toBe(1);
    expect((await readFile(store.location, 'SELECT COUNT(*) AS n FROM reservations'))[0]!.n).toBe(0);
  });
});

/** node:sqlite where this Node has it without a flag (22.13+, 24): how earlier Gleaners wrote on those. */
const nodeSqlite = (() => {
  try {
    return createRequire(import.meta.url)('node:sqlite') as { DatabaseSync: new (file: string) => { exec(sql: string): void; close(): void } };
  } catch {
    return undefined;
  }
})();

/** A store file in WAL mode as an earlier Gleaner on Node 22 left it when it stopped: one key in it. */
async function leftInWal(dataDir: string): Promise<string> {
  const store = await openStore({ dataDir });
  await store.set('kept', 'before');
  await store.close();
  const file = path.join(dataDir, 'gleaner.sqlite');
  // What `PRAGMA journal_mode=WAL` writes: the header's format bytes 18 and 19 set to 2.
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.from([2, 2]), 0, 2, 18);
  fs.closeSync(fd);
  return file;
}

describe('a store file left in WAL mode by an earlier Gleaner on Node 22+', { timeout: 60_000 }, () => {
  it('with nothing pending and no process on it: converted at open, its keys kept', async () => {
    const dataDir = freshDir();
    await leftInWal(dataDir);
    const store = await open(dataDir);
    expect(await store.get('kept')).toBe('before');
    expect(fs.readFileSync(store.location)[18], 'the header says rollback journal').toBe(1);
  });

  it('held open by another process: refused at open naming the file and what to do, and that process goes on', async () => {
    const dataDir = freshDir();
    const file = await leftInWal(dataDir);
    // The holder: node:sqlite in WAL where this Node has it; on Node 20 what it leaves beside the file.
    const holder = nodeSqlite ? new nodeSqlite.DatabaseSync(file) : undefined;
    holder?.exec(`PRAGMA journal_mode=WAL; INSERT INTO kv(key, value) VALUES ('holder', '"x"')`);
    if (!holder) fs.writeFileSync(`${file}-wal`, '');
    try {
      const failure = await openStore({ dataDir }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreFileError);
      expect((failure as Error).message).toContain(file);
      expect((failure as Error).message).toMatch(/WAL mode.*(Stop|stop)/);
      // Nothing was changed under the holder: the file is still in WAL and it still writes.
      holder?.exec(`INSERT INTO kv(key, value) VALUES ('after', '"y"')`);
      expect(fs.readFileSync(file)[18]).toBe(2);
      expect(fs.existsSync(`${file}.lock`), 'the lock is given back').toBe(false);
    } finally {
      holder?.close();
    }
  });

  it.skipIf(!nodeSqlite)('with changes still in its WAL (a process killed): converted keeping them (Node 22+)', async () => {
    const dataDir = freshDir();
    const file = await leftInWal(dataDir);
    const writer = new nodeSqlite!.DatabaseSync(file);
    writer.exec(`PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; INSERT INTO kv(key, value) VALUES ('in-wal', '"pending"')`);
    // The files as a kill -9 leaves them: the database and its WAL, copied while the writer holds them.
    const crashed = freshDir();
    for (const suffix of ['', '-wal']) fs.copyFileSync(`${file}${suffix}`, path.join(crashed, `gleaner.sqlite${suffix}`));
    writer.close();
    const store = await open(crashed);
    expect(await store.get('in-wal')).toBe('pending');
    expect(await store.get('kept')).toBe('before');
  });
});
