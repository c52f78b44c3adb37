/**
 * Crawl webhooks survive a restart: a job that finished (or died) before its webhook went out is
 * reported by the next server on the same store.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import type { JobRecord } from '../src/jobs/jobs.js';

let receiver: http.Server;
let receiverUrl: string;
const arrivals: Array<(body: { jobId: string; status: string; error: unknown }) => void> = [];
const received: Array<{ jobId: string; status: string }> = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push(body);
      res.end('ok');
      arrivals.shift()?.(body);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const env = { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_WEBHOOK_SECRET: 'test-webhook-secret-0123456789' };

describe('pending webhooks', () => {
  it('are delivered by the next server: a finished job as completed, a job that died as failed, each once', async () => {
    let server: TestServer = await startTestServer({ env });
    const key = await server.createKey('Pro');
    const ownerId = (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
    const now = new Date().toISOString();
    const base = { operation: 'web_crawl', ownerId, input: {}, error: null, progress: null, meta: {}, createdAt: now, updatedAt: now };
    // What a process that stopped at the wrong moment leaves: one job finished but not yet reported, one mid-crawl.
    const finished: JobRecord = { ...base, jobId: 'job_finished', status: 'completed', result: { pages: [] } };
    const dying: JobRecord = { ...base, jobId: 'job_dying', status: 'processing', result: null };
    const { store } = server.app.services;
    await store.set('job:job_finished', finished);
    await store.set('job:job_dying', dying);
    await store.set('jobs:active', ['job_dying']);
    await store.set('webhooks:pending', [
      { jobId: 'job_finished', ownerId, url: receiverUrl },
      { jobId: 'job_dying', ownerId, url: receiverUrl },
    ]);
    const dataDir = server.dataDir;
    await server.close();

    const both = Promise.all([0, 1].map(() => new Promise((resolve) => arrivals.push(resolve))));
    server = await startTestServer({ env, dataDir });
    try {
      await both;
      expect(received.map((r) => `${r.jobId}:${r.status}`).sort()).toEqual(['job_dying:failed', 'job_finished:completed']);
      // Delivered means no longer pending: the list empties once both are through.
      while (((await server.app.services.store.get<unknown[]>('webhooks:pending')) ?? []).length > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      await server.close();
    }
    expect(received).toHaveLength(2);
  });
});
