/**
 * One Redis, several real processes: credits and rate buckets exact across them, and an outage that
 * fails requests quickly (503 naming the store) and leaves nothing to run later.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once, EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/app.js';
import { startHttpServer } from '../../src/surfaces/http-server.js';
import { chargeOperation } from '../support/charged-server.js';
import { freePort, hasRedis, spawnChargedServer } from '../support/processes.js';

const operations = [...OPERATIONS, chargeOperation];

/** redis-server on `port`, with an append-only file in `dir` so a restart keeps the data. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], { stdio: 'pipe' });
  await new Promise<void>((resolve) => redis.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve()));
  return redis;
}

async function call(base: string, apiKey: string, pathAndQuery = '/v1/test/charge'): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${pathAndQuery}`, { headers: { 'x-api-key': apiKey } });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

describe.skipIf(!hasRedis())('several processes on one Redis', { timeout: 300_000 }, () => {
  let redis: ChildProcess;
  let port: number;
  let url: string;
  let dir: string;
  let local: TestServer | undefined;
  let other: { url: string; child: ChildProcess } | undefined;

  beforeAll(async () => {
    port = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-redis-'));
    redis = await startRedis(port, dir);
    url = `redis://127.0.0.1:${port}`;
    local = await startTestServer({ operations, env: { GLEANER_STORE_URL: url } });
    other = await spawnChargedServer({ GLEANER_STORE_URL: url, GLEANER_DATA_DIR: dir });
  }, 300_000);
  afterAll(async () => {
    other?.child.kill('SIGKILL');
    await local?.close();
    redis.kill('SIGKILL');
  });

  it('1,000 concurrent 1-credit calls split across two processes on a 100-credit key: exactly 100 succeed', async () => {
    const { account, apiKey } = await local!.app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 100 });
    const replies = await Promise.all(Array.from({ length: 1000 }, (_, i) => call(i % 2 ? other!.url : local!.baseUrl, apiKey)));
    const statuses: Record<number, number> = {};
    for (const r of replies) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    expect(statuses).toEqual({ 200: 100, 402: 900 });
    expect(replies.filter((r) => r.status === 402)).toHaveLength(900);
    expect((await local!.app.services.accounts.balance(account)).used).toBe(100);
    expect(await local!.app.services.store.ledger.reservations()).toHaveLength(0);
  });

  it('a Free key (10 a minute, burst 10) hammered through two processes gets exactly 10', async () => {
    const { apiKey } = await local!.app.services.accounts.create({ plan: 'Free' });
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? other!.url : local!.baseUrl, apiKey, '/v1/me')));
    const passed = replies.filter((r) => r.status === 200);
    // A token comes back every 6 s: on a slow machine one may refill while the 40 calls run.
    expect(passed.length).toBeGreaterThanOrEqual(10);
    expect(passed.length).toBeLessThanOrEqual(11);
    expect(replies.filter((r) => r.status === 429).length).toBe(40 - passed.length);
  });
});

describe.skipIf(!hasRedis())('a Redis outage', { timeout: 300_000 }, () => {
  let redis: ChildProcess | undefined;
  afterEach(() => {
    redis?.kill('SIGKILL');
  });

  it('fails requests with 503 naming the store, logs it, and runs nothing later', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-redis-'));
    redis = await startRedis(port, dir);
    const url = `redis://127.0.0.1:${port}`;
    const lines: string[] = [];
    const logged = new EventEmitter();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        logged.emit('line');
        done();
      },
    });
    const config = loadConfig({ GLEANER_DATA_DIR: dir, GLEANER_STORE_URL: url, GLEANER_LOG_LEVEL: 'info' });
    const app = await createApp(config, { logger: pino({ level: 'info' }, sink), operations });
    const http = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    try {
      const { account, apiKey } = await app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 100 });
      expect((await call(http.url, apiKey)).status).toBe(200);

      // Frozen: commands are sent and never answered. They time out in a few seconds.
      redis.kill('SIGSTOP');
      const started = Date.now();
      const frozen = await call(http.url, apiKey);
      expect(frozen.status).toBe(503);
      expect(frozen.body.error.code).toBe('STORE_UNAVAILABLE');
      expect(frozen.body.error.message).toContain(`127.0.0.1:${port}`);
      expect(Date.now() - started).toBeLessThan(30_000);
      redis.kill('SIGCONT');

      // Gone: requests fail at once, the outage is logged, nothing is queued for later.
      redis.kill('SIGKILL');
      await once(redis, 'exit');
      const down = await Promise.all(Array.from({ length: 5 }, () => call(http.url, apiKey)));
      expect(down.every((r) => r.status === 503 && r.body.error.code === 'STORE_UNAVAILABLE')).toBe(true);
      while (!lines.some((line) => line.includes('unreachable'))) await once(logged, 'line');

      redis = await startRedis(port, dir);
      let back = await call(http.url, apiKey);
      while (back.status === 503) back = await call(http.url, apiKey);
      expect(back.status).toBe(200);
      // Two successes only: the frozen call's reservation was undone, and none of the five ran later.
      expect((await app.services.accounts.balance(account)).used).toBe(2);
    } finally {
      await http.close();
      await app.close();
    }
  });
});
