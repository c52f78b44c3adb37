/**
 * The journal of kept charges (src/store/keep-journal.ts), on both engines (node:sqlite where the
 * runtime has it): a call charged from a block of credits is answered once its line is fdatasynced
 * in this process's journal, not after a SQLite commit on the store's thread, and the journal is folded into the file about once a second.
 * What must hold: the usage this process shows is exact before and after a fold; another connection
 * sees the charges once folded; and a dead process's journal is folded by the sweep that returns its
 * blocks, counting each answered keep once, never a line a crash cut short, never a segment twice.
 * (test/processes/store-processes.test.ts kills a real server with -9 mid-burst: charges = replies.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { defaultEngine, type SqliteEngine } from '../../src/store/sqlite-db.js';
import { Accounts } from '../../src/accounts/accounts.js';
import { onStoreFile } from '../support/store-file.js';
import { creditPeriod } from '../../src/accounts/clock.js';
import { keepsDir, ownerTag, parseSegment } from '../../src/store/keep-journal.js';

const opened: Store[] = [];
const started: Accounts[] = [];
afterEach(async () => {
  for (const accounts of started.splice(0)) accounts.stop();
  for (const store of opened.splice(0)) await store.close();
});

let engine: SqliteEngine = 'wasm';

async function serving(dataDir: string): Promise<Accounts> {
  const store = await openStore({ dataDir, sqliteEngine: engine });
  opened.push(store);
  const accounts = new Accounts(store);
  await accounts.start();
  started.push(accounts);
  return accounts;
}

const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-keeps-'));
const storeFile = (dir: string) => path.join(dir, 'gleaner.sqlite');
const segmentFiles = (dir: string) => (fs.existsSync(keepsDir(storeFile(dir))) ? fs.readdirSync(keepsDir(storeFile(dir))) : []);

const onFile = <T>(dir: string, work: Parameters<typeof onStoreFile<T>>[2]) => onStoreFile(dir, engine, work);

for (const tested of new Set<SqliteEngine>(['wasm', defaultEngine()])) describe(`${tested}: the journal of kept charges`, { timeout: 120_000 }, () => {
  beforeAll(() => {
    engine = tested;
  });

  it('a burst of charges is kept in the journal, shown exactly by this process at once, and by another connection once folded', async () => {
    const dir = dataDir();
    const accounts = await serving(dir);
    const { account, apiKey } = await accounts.create({ plan: 'Apex' });
    await accounts.authenticate(apiKey);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 40; i++) {
          const { reservation } = await accounts.reserve(account.id, 1);
          await accounts.keep(reservation);
        }
      }),
    );
    // Folded or not yet, this process shows what it charged.
    expect((await accounts.balance(account)).used).toBe(320);
    // The file's lease rows give the kept credits up with the fold, and the segment files go.
    await vi.waitFor(() => expect(segmentFiles(dir)).toEqual([]), { timeout: 30_000, interval: 50 });
    const elsewhere = new Accounts(await openStore({ dataDir: dir, sqliteEngine: engine }));
    opened.push((elsewhere as unknown as { store: Store }).store);
    expect((await elsewhere.balance(account)).used).toBe(320);
    expect((await accounts.balance(account)).used).toBe(320);
  });

  it('a dead process’s journal is folded by the sweep: each answered keep stays charged once, a line cut short and a segment already folded do not count', async () => {
    const dir = dataDir();
    const accounts = await serving(dir);
    const { account } = await accounts.create({ plan: 'Apex' });
    // A process of this machine that has exited: the sweep takes its owner for gone.
    const dead = `${os.hostname()}/${spawnSync(process.execPath, ['-e', '0']).pid}/0badc0de`;
    const lease = `lease:${dead}:${account.id}:1`;
    // It claimed 55 credits into a block; a fold took 5 of them out before it died (segment 1,
    // marked folded in the file, whose file it had not removed yet); segment 2 holds 20 keeps and
    // a last line the kill cut short, never answered.
    await onFile(dir, (db) => {
      db.run('INSERT INTO reservations(id, account, period, amount, owner) VALUES (?, ?, ?, ?, ?)', [lease, account.id, creditPeriod(new Date()), 50, dead]);
      db.run('INSERT OR REPLACE INTO usage(account, period, used) VALUES (?, ?, ?)', [account.id, creditPeriod(new Date()), 55]);
      db.run('INSERT INTO folded_keeps(name) VALUES (?)', [`${ownerTag(dead)}.1.keeps`]);
    });
    const folder = keepsDir(storeFile(dir));
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `${ownerTag(dead)}.1.keeps`), `${lease}\t1\n`.repeat(5));
    fs.writeFileSync(path.join(folder, `${ownerTag(dead)}.2.keeps`), `${lease}\t1\n`.repeat(20) + `${lease}\t1`);

    expect(await accounts.sweep()).toBe(30);
    expect((await accounts.balance(account)).used).toBe(25);
    expect(await onFile(dir, (db) => db.all('SELECT COUNT(*) AS n FROM reservations')[0]!.n)).toBe(0);
    expect(segmentFiles(dir)).toEqual([]);
  });

  it('a journal that cannot be written: the charge fails naming the store, and nothing is charged', async () => {
    const dir = dataDir();
    const accounts = await serving(dir);
    const { account, apiKey } = await accounts.create({ plan: 'Apex' });
    await accounts.authenticate(apiKey);
    // Where the journal's folder should be, a file: no segment can be made.
    fs.writeFileSync(keepsDir(storeFile(dir)), 'not a folder');
    const { reservation } = await accounts.reserve(account.id, 1);
    await expect(accounts.keep(reservation)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((await accounts.balance(account)).used).toBe(0);
  });

  it('a store opening removes the segment files a crash left after their fold, and keeps those not folded', async () => {
    const dir = dataDir();
    await serving(dir);
    const folder = keepsDir(storeFile(dir));
    fs.mkdirSync(folder, { recursive: true });
    const [done, waiting] = [`${ownerTag('a')}.7.keeps`, `${ownerTag('b')}.1.keeps`];
    await onFile(dir, (db) => db.run('INSERT INTO folded_keeps(name) VALUES (?)', [done]));
    for (const name of [done, waiting]) fs.writeFileSync(path.join(folder, name), 'lease:x\t1\n');
    await openStore({ dataDir: dir, sqliteEngine: engine }).then((store) => opened.push(store));
    expect(segmentFiles(dir)).toEqual([waiting]);
    expect(await onFile(dir, (db) => db.all('SELECT COUNT(*) AS n FROM folded_keeps')[0]!.n)).toBe(0);
  });

  it('a segment’s complete lines are what counts', () => {
    expect([...parseSegment('lease:a\t1\nlease:b\t2\nlease:a\t3\nlease:b\t')]).toEqual([
      ['lease:a', 4],
      ['lease:b', 2],
    ]);
    expect([...parseSegment('garbage\nlease:a\t-1\nlease:a\tx\n\tl\n')]).toEqual([]);
  });
});
