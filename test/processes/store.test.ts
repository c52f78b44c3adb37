import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { hashApiKey } from '../../src/accounts/accounts.js';
import { creditPeriod } from '../../src/accounts/clock.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { freePort, hasRedis } from '../support/processes.js';
import { openStore } from '../../src/store/store.js';
import { Accounts } from '../../src/accounts/accounts.js';

describe('the default store', () => {
  it('is SQLite in the data folder, and keeps keys and credits across restarts', async () => {
    let server: TestServer = await startTestServer();
    expect(server.app.services.store.kind).toBe('sqlite');
    expect(server.app.services.store.location.startsWith(server.dataDir)).toBe(true);
    const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Free' });
    await server.app.services.accounts.reserve(account.id, 7);
    const dataDir = server.dataDir;
    await server.close();
    server = await startTestServer({ dataDir });
    const me = await server.request('GET', '/v1/me', { apiKey });
    expect(me.body).toMatchObject({ id: account.id, credits: 93 });
    await server.close();
  });
});

/** Reserve 3 credits, close the reservation as charged: the row goes, the 3 credits stay used. */
async function keepCharges(accounts: Accounts, store: Awaited<ReturnType<typeof openStore>>): Promise<void> {
  const { account } = await accounts.create({ plan: 'Free' });
  const { reservation } = await accounts.reserve(account.id, 3);
  expect((await store.ledger.reservations()).map((r) => r.id)).toContain(reservation.id);
  await store.ledger.keep(reservation.id);
  expect((await store.ledger.reservations()).map((r) => r.id)).not.toContain(reservation.id);
  expect((await accounts.balance(account)).used).toBe(3);
}

describe('the credit ledger', () => {
  it('on SQLite, keeping a reservation removes its row and leaves its credits used', async () => {
    const store = await openStore({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-ledger-')) });
    try {
      await keepCharges(new Accounts(store), store);
    } finally {
      await store.close();
    }
  });
});

describe('a store written by an earlier version', () => {
  it("brings over Keyv's table: keys keep working and their credits used stay used", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-keyv-'));
    // Rows in the layout @keyv/sqlite 4 with Keyv 5 wrote (table keyv, namespace prefix, {value, expires}),
    // with values of this test's own: the old native driver is no longer installed to write them.
    const apiKey = 'gl_an-old-key-of-this-test';
    const id = 'acct_0123456789abcdef';
    const account = { id, name: 'old', plan: 'Free', keyHash: hashApiKey(apiKey), keyPrefix: apiKey.slice(0, 7), createdAt: '2026-01-01T00:00:00.000Z', period: creditPeriod(new Date()), used: 7 };
    const { Database } = createRequire(import.meta.url)('node-sqlite3-wasm') as typeof import('node-sqlite3-wasm');
    const db = new Database(path.join(dataDir, 'gleaner.sqlite'));
    db.exec('CREATE TABLE keyv(key VARCHAR(255) PRIMARY KEY, value TEXT)');
    const put = (key: string, value: unknown) => db.run('INSERT INTO keyv VALUES (?, ?)', [`gleaner:${key}`, JSON.stringify({ value, expires: null })]);
    put(`account:${id}`, account);
    put(`keyhash:${account.keyHash}`, id);
    put('accounts:index', [id]);
    db.close();
    const server = await startTestServer({ dataDir });
    try {
      const me = await server.request('GET', '/v1/me', { apiKey });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id, plan: 'Free', credits: 93 });
    } finally {
      await server.close();
    }
  });
});

// Redis comes from Debian's redis-server (installed by .ci/run); a machine without it skips this part.
describe.skipIf(!hasRedis())('a shared Redis store', () => {
  let redis: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'pipe' });
    await new Promise<void>((resolve) => redis.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve()));
    url = `redis://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    redis.kill();
    await once(redis, 'exit');
  });

  it('two servers sharing it never spend a credit twice', async () => {
    const a = await startTestServer({ env: { GLEANER_STORE_URL: url } });
    const b = await startTestServer({ env: { GLEANER_STORE_URL: url } });
    try {
      expect(a.app.services.store.kind).toBe('redis');
      const { account, apiKey } = await a.app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 50 });
      // Two processes' worth of accounts objects, each with its own in-process lock: only Redis serialises them.
      const results = await Promise.allSettled(
        Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).app.services.accounts.reserve(account.id, 1)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
      const me = await b.request('GET', '/v1/me', { apiKey });
      expect(me.body.credits).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeping a reservation removes its row and leaves its credits used', async () => {
    const store = await openStore({ dataDir: '/nonexistent', storeUrl: url });
    try {
      await keepCharges(new Accounts(store), store);
    } finally {
      await store.close();
    }
  });

  it('a third process opening the same Redis sees the same accounts', async () => {
    const store = await openStore({ dataDir: '/nonexistent', storeUrl: url });
    try {
      const accounts = new Accounts(store);
      const { apiKey } = await accounts.create({ plan: 'Basic' });
      const server = await startTestServer({ env: { GLEANER_STORE_URL: url } });
      try {
        expect((await server.request('GET', '/v1/me', { apiKey })).body.plan).toBe('Basic');
      } finally {
        await server.close();
      }
    } finally {
      await store.close();
    }
  });
});
