/**
 * The blocks of credits (src/store/sqlite-leases.ts), on both engines (node:sqlite where the runtime
 * has it: Node 22 and 24): a 1-credit reservation is
 * answered from a block this process claimed in the file, so a charged call waits for the store's
 * thread only for its durable keep. These check that it does, and what it must never do: let the
 * processes' claims together pass a balance, charge under a plan another connection changed, or
 * leave credits claimed once the store closes. The second store here has a thread and a connection
 * of its own on the same file, as another process has (test/processes/store-processes.test.ts kills
 * a real server with -9 in the middle of a burst: every reply charged, the rest of its block returned).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { countThreadSteps } from '../support/thread-steps.js';
import { defaultEngine, type SqliteEngine } from '../../src/store/sqlite-db.js';
import { Accounts } from '../../src/accounts/accounts.js';
import { onStoreFile } from '../support/store-file.js';

const opened: Store[] = [];
const started: Accounts[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const accounts of started.splice(0)) accounts.stop();
  for (const store of opened.splice(0)) await store.close();
});

let engine: SqliteEngine = 'wasm';

async function open(dataDir: string): Promise<Store> {
  const store = await openStore({ dataDir, sqliteEngine: engine });
  opened.push(store);
  return store;
}

/** Accounts as a server runs them: with a heartbeat, so another side's sweep leaves its claims alone. */
async function serving(store: Store): Promise<Accounts> {
  const accounts = new Accounts(store);
  await accounts.start();
  started.push(accounts);
  return accounts;
}

const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-leases-'));


/** What the file itself says, read on a connection of its own. */
function inFile(dir: string, account: string): Promise<{ used: number; rows: number }> {
  return onStoreFile(dir, engine, (db) => ({
    used: (db.all('SELECT used FROM usage WHERE account = ?', [account])[0]?.used as number | undefined) ?? 0,
    rows: db.all('SELECT COUNT(*) AS n FROM reservations WHERE account = ?', [account])[0]!.n as number,
  }));
}

for (const tested of new Set<SqliteEngine>(['wasm', defaultEngine()])) describe(`${tested}: 1-credit reservations are answered from a block of credits claimed in the file`, { timeout: 120_000 }, () => {
  beforeAll(() => {
    engine = tested;
  });

  it('a burst of 1-credit charges goes to the store’s thread for a few claims only', async () => {
    const store = await open(dataDir());
    const accounts = await serving(store);
    const { account, apiKey } = await accounts.create({ plan: 'Apex' });
    await accounts.authenticate(apiKey);
    const steps = countThreadSteps();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 25; i++) {
          await accounts.authenticate(apiKey);
          const { reservation } = await accounts.reserve(account.id, 1);
          await accounts.keep(reservation);
        }
      }),
    );
    expect(steps.get('reserve') ?? 0).toBe(0);
    expect(steps.get('claim')).toBeLessThanOrEqual(8);
    // Their keeps never go to the thread: an fdatasync of the journal of kept charges for each group of
    // them, folded into the file about once a second (store-keep-journal.test.ts).
    expect(steps.get('keep') ?? 0).toBe(0);
    expect(steps.get('foldKeeps') ?? 0).toBeLessThanOrEqual(10);
    // Shown: the 200 charged, not the rest of the block.
    expect((await accounts.balance(account)).used).toBe(200);
  });

  it('a block running low is topped up in the background: in 300 charges one after another, the calls wait for the first claim, not for every one', async () => {
    const store = await open(dataDir());
    const accounts = await serving(store);
    const { account, apiKey } = await accounts.create({ plan: 'Apex' });
    await accounts.authenticate(apiKey);
    const steps = countThreadSteps();
    let waited = 0;
    for (let i = 0; i < 300; i++) {
      // A reservation answered from the block settles before the next turn of the event loop; one
      // that waits for a claim needs the thread's reply, which only a later turn can bring.
      const reserving = accounts.reserve(account.id, 1);
      const first = await Promise.race([reserving.then(() => 'block'), new Promise<string>((resolve) => setImmediate(() => resolve('thread')))]);
      if (first === 'thread') waited++;
      await accounts.keep((await reserving).reservation);
    }
    // Blocks grow with the pace of the calls (sqlite-leases.ts, nextBlockSize): more than one claim.
    expect(steps.get('claim')).toBeGreaterThanOrEqual(2);
    // The first claim is waited for; on a quiet machine no other (a top-up comes in time). A keep is
    // one fdatasync of the journal now and a claim a commit on the store's thread, so on a busy
    // machine one top-up may come late; without top-ups every block is waited for (3 or more here).
    expect(waited).toBeGreaterThanOrEqual(1);
    expect(waited).toBeLessThanOrEqual(2);
    expect((await accounts.balance(account)).used).toBe(300);
  });

  it('two stores on one file, 1,800 concurrent 1-credit calls on 1,200 credits: never more than 1,200 charged, and none left claimed after close', async () => {
    const dir = dataDir();
    const sides = [await serving(await open(dir)), await serving(await open(dir))];
    const { account, apiKey } = await sides[0]!.create({ plan: 'Pro', monthlyCredits: 1_200 });
    await Promise.all(sides.map((side) => side.authenticate(apiKey)));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 1_800 }, async (_, i) => {
        const side = sides[i % 2]!;
        const { reservation } = await side.reserve(account.id, 1);
        await side.keep(reservation);
      }),
    );
    const charged = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(outcomes.filter((o) => o.status === 'rejected').every((o) => (o as PromiseRejectedResult).reason.code === 'CREDITS_EXHAUSTED')).toBe(true);
    expect(charged).toBeLessThanOrEqual(1_200);
    // Blocks still held count in the file's usage, so the file never shows more than the allowance.
    expect((await inFile(dir, account.id)).used).toBeLessThanOrEqual(1_200);
    for (const store of opened.splice(0)) await store.close();
    expect(await inFile(dir, account.id), 'closed: blocks given back, only the charges stay').toEqual({ used: charged, rows: 0 });
  });

  it('a plan lowered by another connection stops the next reservation, even with credits left in the block', async () => {
    const dir = dataDir();
    const accounts = await serving(await open(dir));
    const elsewhere = new Accounts(await open(dir));
    const { account, apiKey } = await accounts.create({ plan: 'Pro' });
    await accounts.authenticate(apiKey);
    for (let i = 0; i < 150; i++) await accounts.keep((await accounts.reserve(account.id, 1)).reservation);
    // Free allows 100 a month: 150 are used.
    await elsewhere.setPlan(account.id, 'Free');
    await expect(accounts.reserve(account.id, 1)).rejects.toMatchObject({ code: 'CREDITS_EXHAUSTED' });
  });

  it('a released call gives its credits back to the block; a settle to another price and an adopt move them to a row of their own', async () => {
    const dir = dataDir();
    const accounts = await serving(await open(dir));
    const { account, apiKey } = await accounts.create({ plan: 'Apex' });
    await accounts.authenticate(apiKey);
    const first = await accounts.reserve(account.id, 1);
    await accounts.release(first.reservation);
    const second = await accounts.reserve(account.id, 1);
    expect((await accounts.settle(second.reservation, 0)).charged).toBe(0);
    const third = await accounts.reserve(account.id, 2);
    expect((await accounts.settle(third.reservation, 1)).charged).toBe(1);
    const fourth = await accounts.reserve(account.id, 1);
    expect(await accounts.adopt(fourth.reservation)).toBe(true);
    expect((await accounts.settle(fourth.reservation, 1)).charged).toBe(1);
    expect((await accounts.balance(account)).used).toBe(2);
    for (const store of opened.splice(0)) await store.close();
    expect(await inFile(dir, account.id)).toEqual({ used: 2, rows: 0 });
  });

  it('credits added to a pinned reservation (a job learning its size) go to its row, not a block: it settles whole', async () => {
    const dir = dataDir();
    const accounts = await serving(await open(dir));
    const { account, apiKey } = await accounts.create({ plan: 'Apex' });
    await accounts.authenticate(apiKey);
    const { reservation } = await accounts.reserve(account.id, 1);
    await accounts.pin(reservation);
    const { reservation: grown } = await accounts.reserve(account.id, 5, reservation);
    await accounts.pin(grown);
    const { reservation: grownAgain } = await accounts.reserve(account.id, 2, grown);
    expect((await accounts.settle(grownAgain, 8)).charged).toBe(8);
    expect((await accounts.balance(account)).used).toBe(8);
    for (const store of opened.splice(0)) await store.close();
    expect(await inFile(dir, account.id)).toEqual({ used: 8, rows: 0 });
  });
});
