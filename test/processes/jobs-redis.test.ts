/**
 * Jobs through BullMQ on one Redis, with real processes: two `serve` (enqueue only) and `worker`s.
 * A crawl running on a worker while another server starts stays processing and completes charged;
 * a worker killed with kill -9 mid-crawl leaves a job that ends failed with its credits refunded,
 * so the balance is exactly the pages charged by crawls that completed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, createKeyWithCli, hasRedis, jobEnd, startGleaner, startRedis, type GleanerProcess } from '../support/processes.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';

describe.skipIf(!hasRedis())('jobs on BullMQ across processes', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const stops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await redis?.stop();
  });

  it('two serve + one worker: a running crawl survives a server starting; a killed worker’s crawl is failed and refunded, charged once; a cancel reaches the worker', async () => {
    // Held pages wait as long as process start-ups take on a busy machine, beyond the default request timeout.
    const env = { GLEANER_STORE_URL: redis.url, GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_JOB_LEASE_SECONDS: '3', GLEANER_HTTP_TIMEOUT_MS: '600000', GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-redis-jobs-')) };
    const key = await createKeyWithCli(env, 'Pro', 100);
    const site: GatedSite = await startGatedSite(10);
    stops.push(() => site.close());

    const a: GleanerProcess = await startGleaner(['serve', '--port', '0', '--no-worker'], env);
    stops.push(() => a.stop());
    const worker: GleanerProcess = await startGleaner(['worker'], env);
    stops.push(() => worker.stop());

    // 1. A crawl accepted by a, worked by the worker, while b starts.
    const first = await callApi(a.url!, key, 'POST', '/v1/web/crawl', { url: `${site.origin}/`, maxPages: 5 });
    expect(first.status).toBe(202);
    await site.requestedAtLeast(1);
    const b: GleanerProcess = await startGleaner(['serve', '--port', '0', '--no-worker'], env);
    stops.push(() => b.stop());
    // More than a lease period passes while b (and a) sweep for abandoned jobs: the live one is left alone.
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      expect((await callApi(b.url!, key, 'GET', `/v1/jobs/${first.body.jobId}`)).body.status).toBe('processing');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    site.release(5);
    const firstEnd = await jobEnd(b.url!, key, first.body.jobId);
    expect(firstEnd).toMatchObject({ status: 'completed', error: null });
    expect(firstEnd.result.pages).toHaveLength(5);
    expect((await callApi(a.url!, key, 'GET', '/v1/me')).body.credits).toBe(95);

    // 2. A crawl on the worker, which is killed after two pages.
    const before = site.requested.length;
    const second = await callApi(b.url!, key, 'POST', '/v1/web/crawl', { url: `${site.origin}/`, maxPages: 5 });
    await site.requestedAtLeast(before + 3);
    site.release(2);
    expect((await callApi(a.url!, key, 'GET', `/v1/jobs/${second.body.jobId}`)).body.status).toBe('processing');
    expect((await callApi(a.url!, key, 'GET', '/v1/me')).body.credits).toBe(90);
    await worker.stop('SIGKILL');
    // A new worker: BullMQ's stalled check (or a server's lease sweep) takes the job over.
    const next = await startGleaner(['worker'], env);
    stops.push(() => next.stop());
    site.releaseAll();
    const secondEnd = await jobEnd(a.url!, key, second.body.jobId);
    expect(secondEnd).toMatchObject({ status: 'failed', result: null, error: { code: 'INTERNAL_ERROR' } });
    // The killed crawl charged nothing; the completed one charged its 5 pages, once.
    expect((await callApi(a.url!, key, 'GET', '/v1/me')).body.credits).toBe(95);

    // 3. The surviving worker still works new jobs.
    const third = await callApi(a.url!, key, 'POST', '/v1/web/crawl', { url: `${site.origin}/`, maxPages: 3 });
    expect(await jobEnd(a.url!, key, third.body.jobId)).toMatchObject({ status: 'completed', error: null });
    expect((await callApi(a.url!, key, 'GET', '/v1/me')).body.credits).toBe(92);

    // 4. DELETE on one server of a crawl running on the worker: it stops at its next page, charged for what it scraped.
    const held: GatedSite = await startGatedSite(10);
    stops.push(() => held.close());
    const fourth = await callApi(a.url!, key, 'POST', '/v1/web/crawl', { url: `${held.origin}/`, maxPages: 8 });
    await held.requestedAtLeast(3);
    held.release(2);
    while ((await callApi(a.url!, key, 'GET', `/v1/jobs/${fourth.body.jobId}`)).body.progress?.done !== 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const cancelled = await callApi(b.url!, key, 'DELETE', `/v1/jobs/${fourth.body.jobId}`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', error: null });
    expect(cancelled.body.result.pages).toHaveLength(2);
    expect((await callApi(a.url!, key, 'GET', '/v1/me')).body.credits).toBe(90);
  }, 300_000);
});
