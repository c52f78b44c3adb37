/**
 * Crawl webhooks survive a restart: a job that finished (or died) before its webhook went out is
 * reported by the next server on the same store, with the delivery id and attempt count it had.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import type { JobRecord, WebhookState } from '../../src/jobs/jobs.js';
import { deliverWebhook, signWebhook, webhookSecret } from '../../src/jobs/webhook.js';
import { openStore } from '../../src/store/store.js';
import { HttpClient } from '../../src/net/http.js';

interface Arrival {
  body: { jobId: string; status: string; error: unknown };
  delivery: string;
}
let receiver: http.Server;
let receiverUrl: string;
const arrivals: Array<(arrival: Arrival) => void> = [];
const received: Arrival[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrival = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), delivery: String(req.headers['x-gleaner-delivery']) };
      received.push(arrival);
      res.end('ok');
      arrivals.shift()?.(arrival);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const env = { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_WEBHOOK_SECRET: 'test-webhook-secret-0123456789', GLEANER_JOB_LEASE_SECONDS: '0.5' };
const nextArrival = () => new Promise<Arrival>((resolve) => arrivals.push(resolve));

async function seed(server: TestServer, jobs: JobRecord[]): Promise<void> {
  const { store } = server.app.services;
  for (const job of jobs) await store.set(`job:${job.jobId}`, job);
  await store.set('jobs:active', jobs.filter((j) => j.status === 'processing').map((j) => j.jobId));
  await store.set('webhooks:pending', jobs.map((j) => j.jobId));
}

async function pendingEmpty(server: TestServer): Promise<void> {
  while (((await server.app.services.store.get<unknown[]>('webhooks:pending')) ?? []).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('pending webhooks', () => {
  it('are delivered by the next server: a finished job as completed, a job that died as failed, each once', async () => {
    received.length = 0;
    let server: TestServer = await startTestServer({ env });
    const key = await server.createKey('Pro');
    const ownerId = (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
    const now = new Date().toISOString();
    const base = { operation: 'web_crawl', ownerId, input: {}, error: null, progress: null, meta: {}, createdAt: now, updatedAt: now };
    const hook = (id: string): WebhookState => ({ url: receiverUrl, deliveryId: `dlv_${id}`, attempts: 0, state: 'pending', lease: null });
    // What a process that stopped at the wrong moment leaves: one job finished but not yet reported, one mid-crawl.
    await seed(server, [
      { ...base, jobId: 'job_finished', status: 'completed', result: { pages: [] }, webhook: hook('finished') },
      { ...base, jobId: 'job_dying', status: 'processing', result: null, lease: { owner: 'gone:1:x', expiresAt: Date.now() - 1 }, webhook: hook('dying') },
    ]);
    const dataDir = server.dataDir;
    await server.close();

    const both = Promise.all([nextArrival(), nextArrival()]);
    server = await startTestServer({ env, dataDir });
    try {
      await both;
      expect(received.map((r) => `${r.body.jobId}:${r.body.status}:${r.delivery}`).sort()).toEqual(['job_dying:failed:dlv_dying', 'job_finished:completed:dlv_finished']);
      await pendingEmpty(server);
      const record = await server.app.services.jobs.record('job_finished');
      expect(record?.webhook).toMatchObject({ state: 'delivered', attempts: 1, lease: null });
    } finally {
      await server.close();
    }
    expect(received).toHaveLength(2);
  });

  it('a delivery resumed after a restart keeps its delivery id and goes on from its attempt count', async () => {
    received.length = 0;
    let server: TestServer = await startTestServer({ env });
    const key = await server.createKey('Pro');
    const ownerId = (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
    const now = new Date().toISOString();
    // The previous process made one attempt (the receiver was down) and stopped while waiting to retry.
    await seed(server, [
      {
        operation: 'web_crawl', ownerId, input: {}, error: null, progress: null, meta: {}, createdAt: now, updatedAt: now,
        jobId: 'job_retrying', status: 'completed', result: { pages: [] },
        webhook: { url: receiverUrl, deliveryId: 'dlv_first_id', attempts: 1, state: 'pending', lease: { owner: 'gone:2:y', expiresAt: Date.now() - 1 } },
      },
    ]);
    const dataDir = server.dataDir;
    await server.close();

    const arrival = nextArrival();
    server = await startTestServer({ env, dataDir });
    try {
      expect((await arrival).delivery).toBe('dlv_first_id');
      await pendingEmpty(server);
      const record = await server.app.services.jobs.record('job_retrying');
      expect(record?.webhook).toMatchObject({ deliveryId: 'dlv_first_id', attempts: 2, state: 'delivered' });
    } finally {
      await server.close();
    }
    expect(received).toHaveLength(1);
  });
});

describe('webhooks', () => {
  it('generates one secret and keeps it in the store; the configured one wins', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-webhook-'));
    const store = await openStore({ dataDir: dir });
    const first = await webhookSecret(store, undefined);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await webhookSecret(store, undefined)).toBe(first);
    expect(await webhookSecret(store, 'configured-secret-value')).toBe('configured-secret-value');
    await store.close();
  });

  it('signs `<timestamp>.<body>` and retries a failing receiver with the same delivery id', async () => {
    const seen: Array<{ status: number; headers: http.IncomingHttpHeaders; body: string }> = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = seen.length === 0 ? 503 : 200;
        seen.push({ status, headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const client = new HttpClient({ overrides: [], allowPrivate: true });
    const ok = await deliverWebhook({ http: client, secret: 's3cret', url, payload: { jobId: 'job_1', status: 'completed', result: { pages: [] } }, baseDelayMs: 10 });
    expect(ok).toBe(true);
    expect(seen.map((s) => s.status)).toEqual([503, 200]);
    const last = seen[1];
    const ts = Number(last.headers['x-gleaner-timestamp']);
    expect(last.headers['x-gleaner-signature']).toBe(`sha256=${createHmac('sha256', 's3cret').update(`${ts}.${last.body}`).digest('hex')}`);
    expect(signWebhook('s3cret', ts, last.body)).toBe(last.headers['x-gleaner-signature']);
    expect(seen[0].headers['x-gleaner-delivery']).toBe(last.headers['x-gleaner-delivery']);
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await client.close();
  });

  it('does not deliver to a blocked address when the guard is on', async () => {
    const client = new HttpClient({ overrides: [] });
    expect(await deliverWebhook({ http: client, secret: 's', url: 'http://127.0.0.1:9/hook', payload: {}, baseDelayMs: 1 })).toBe(false);
  });
});
