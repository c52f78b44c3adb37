/**
 * Scale-out benchmark: crawl jobs through BullMQ on one Redis, worked by 1 and then 2 `gleaner worker`
 * processes behind one `serve --no-worker`. Each process crawls a host at most GLEANER_HOST_CONCURRENCY
 * pages at once, so a second worker doubles what a site may get in flight. Needs redis-server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { callApi, createKeyWithCli, hasRedis, jobEnd, startGleaner, startRedis, type GleanerProcess } from '../test/support/processes.js';

const JOBS = 8;
const PAGES = 50;
const LATENCY_MS = 50;
/** Jobs a worker runs at once: fewer than JOBS, so that one worker cannot take every job and a second has work. */
const JOB_CONCURRENCY = 2;

async function round(workers: number): Promise<{ ms: number; pages: number }> {
  const redis = await startRedis();
  const site = await startFixtureSite({ pages: PAGES * 2, sitemap: 'none', latencyMs: LATENCY_MS });
  const env = {
    GLEANER_STORE_URL: redis.url,
    GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-scale-')),
    GLEANER_ALLOW_PRIVATE_URLS: 'true',
    GLEANER_JOB_CONCURRENCY: String(JOB_CONCURRENCY),
    GLEANER_LOG_LEVEL: 'warn',
  };
  const processes: GleanerProcess[] = [];
  try {
    const key = await createKeyWithCli(env, 'Enterprise', 1_000_000);
    const serve = await startGleaner(['serve', '--port', '0', '--no-worker'], { ...env, GLEANER_LOG_LEVEL: 'info' });
    processes.push(serve);
    for (let i = 0; i < workers; i++) processes.push(await startGleaner(['worker'], { ...env, GLEANER_LOG_LEVEL: 'info' }));
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: JOBS }, async () => (await callApi(serve.url!, key, 'POST', '/v1/web/crawl', { url: `${site.origin}/`, mode: 'recursive', maxPages: PAGES })).body.jobId as string),
    );
    const ends = await Promise.all(ids.map((id) => jobEnd(serve.url!, key, id)));
    const ms = performance.now() - started;
    return { ms, pages: ends.reduce((sum, job) => sum + (job.result?.pages?.length ?? 0), 0) };
  } finally {
    for (const p of processes.reverse()) await p.stop();
    await site.close();
    await redis.stop();
  }
}

export async function benchScale(): Promise<void> {
  if (!hasRedis()) {
    console.log('\njobs across workers: skipped (no redis-server)');
    return;
  }
  console.log(`\njobs across workers (BullMQ on Redis): ${JOBS} crawl jobs of ${PAGES} pages, ${LATENCY_MS} ms latency a page, ${JOB_CONCURRENCY} jobs at once a worker, one serve --no-worker`);
  for (const workers of [1, 2]) {
    const { ms, pages } = await round(workers);
    console.log(`  ${workers} worker${workers > 1 ? 's' : ' '}: ${pages} pages in ${ms.toFixed(0)} ms = ${((pages / ms) * 1000).toFixed(1)} pages/s`);
  }
}
