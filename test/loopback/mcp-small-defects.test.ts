/**
 * The small defects of issue 27.5, each over a real server on loopback: progress that only
 * increases, a cancelled job logged and counted as cancelled, and the job handle, `account` and
 * `job_list` read as text that says what to call next.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { startFixtureSite } from '../support/fixture-site.js';
import { TEST_OPERATIONS, gates } from '../support/test-operations.js';
import { registry } from '../../src/observability/metrics.js';

const env = { GLEANER_ALLOW_PRIVATE_URLS: 'true' };
let server: TestServer | undefined;
let site: GatedSite | undefined;
afterEach(async () => {
  site?.releaseAll();
  await site?.close();
  await server?.close();
  site = server = undefined;
  gates.removeAllListeners('step');
});

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** gleaner_jobs_total for one operation and status (the registry is this process's). */
async function jobsTotal(operation: string, status: string): Promise<number> {
  const metric = (await registry.getSingleMetric('gleaner_jobs_total')!.get()).values.find((v) => v.labels.operation === operation && v.labels.status === status);
  return metric?.value ?? 0;
}

/** Resolves once `check` holds of the job's record. */
async function jobWhere(s: TestServer, jobId: string, check: (job: any) => boolean): Promise<any> {
  for (;;) {
    const job = await s.app.services.jobs.record(jobId);
    if (job && check(job)) return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('progress over MCP', () => {
  it('only increases, through a crawl whose page count repeats at its end', async () => {
    server = await startTestServer({ env });
    const crawlSite = await startFixtureSite({ pages: 25 });
    const client = await connectMcp(server.baseUrl, await server.createKey('Pro', { credits: 100 }));
    try {
      const values: Array<{ progress: number; total?: number }> = [];
      const result = await client.callTool({ name: 'web_crawl', arguments: { url: crawlSite.origin, maxPages: 25 } }, undefined, {
        onprogress: (p) => void values.push({ progress: p.progress, total: p.total }),
        timeout: 120_000,
      });
      expect(result.isError).toBeFalsy();
      expect(values.length).toBeGreaterThan(5);
      for (let i = 1; i < values.length; i++) expect(values[i].progress, JSON.stringify(values)).toBeGreaterThan(values[i - 1].progress);
      for (const v of values) if (v.total !== undefined) expect(v.progress).toBeLessThanOrEqual(v.total);
      expect(values.at(-1)!.progress).toBe(25);
    } finally {
      await client.close();
      await crawlSite.close();
    }
  }, 120_000);
});

describe('a cancelled job', () => {
  it('running: logged "job finished" cancelled and counted in gleaner_jobs_total{status="cancelled"}, not completed', async () => {
    const { logger, lines } = capturedLogger();
    server = await startTestServer({ env, logger });
    site = await startGatedSite(10);
    const key = await server.createKey('Pro', { credits: 100 });
    const [completedBefore, cancelledBefore] = [await jobsTotal('web_crawl', 'completed'), await jobsTotal('web_crawl', 'cancelled')];
    const started = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${site.origin}/`, maxPages: 10 } });
    const { jobId } = started.body;
    await site.requestedAtLeast(3);
    site.release(2);
    await jobWhere(server, jobId, (job) => (job.progress?.done ?? 0) >= 2);
    const cancelled = await server.request('DELETE', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    // The cancelled crawl returns the pages it got, as a completed one would: it is still a cancel.
    expect(cancelled.body.result.pages).toHaveLength(2);
    await server.app.services.jobs.idle();
    const finished = lines.filter((line) => line.msg === 'job finished' && line.jobId === jobId);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ operation: 'web_crawl', status: 'cancelled' });
    expect(await jobsTotal('web_crawl', 'cancelled')).toBe(cancelledBefore + 1);
    expect(await jobsTotal('web_crawl', 'completed')).toBe(completedBefore);
  }, 60_000);

  it('queued: cancelled before it ran, logged and counted cancelled once', async () => {
    const { logger, lines } = capturedLogger();
    server = await startTestServer({ env: { GLEANER_JOB_CONCURRENCY: '1' }, operations: TEST_OPERATIONS, logger });
    const key = await server.createKey('Free');
    const before = await jobsTotal('test_job', 'cancelled');
    const running = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 1 } });
    const queued = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 3 } });
    expect((await server.request('DELETE', `/v1/jobs/${queued.body.jobId}`, { apiKey: key })).body.status).toBe('cancelled');
    while (gates.listenerCount('step') === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    gates.emit('step');
    await jobWhere(server, running.body.jobId, (job) => job.status === 'completed');
    await server.app.services.jobs.idle();
    expect(lines.filter((line) => line.msg === 'job finished' && line.jobId === queued.body.jobId).map((line) => line.status)).toEqual(['cancelled']);
    expect(lines.filter((line) => line.msg === 'job finished' && line.jobId === running.body.jobId).map((line) => line.status)).toEqual(['completed']);
    expect(await jobsTotal('test_job', 'cancelled')).toBe(before + 1);
  }, 60_000);
});

describe('short replies read as text that says what to call next', () => {
  /** The text blocks of a successful call. */
  async function texts(client: Awaited<ReturnType<typeof connectMcp>>, name: string, args: Record<string, unknown>): Promise<{ blocks: string[]; structured: any }> {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const blocks = (result.content as Array<{ type: string; text: string }>).map((part) => part.text);
    // Words, not a JSON dump.
    for (const block of blocks) expect(block.trimStart().startsWith('{')).toBe(false);
    return { blocks, structured: result.structuredContent };
  }

  it('the job handle, job_status of a running job, account and job_list', async () => {
    server = await startTestServer({ env: { ...env, GLEANER_MCP_WAIT_SECONDS: '0' } });
    site = await startGatedSite(5);
    const key = await server.createKey('Pro', { credits: 100 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const handle = await texts(client, 'web_crawl', { url: `${site.origin}/`, maxPages: 5 });
      const { jobId } = handle.structured;
      expect(handle.blocks).toHaveLength(2);
      expect(handle.blocks[0]).toMatch(new RegExp(`^Job ${jobId} \\(web_crawl\\) is still (queued|processing) after 0 s`));
      expect(handle.blocks[1]).toBe(`Call job_status with jobId="${jobId}" in a few seconds to get its result, or job_cancel with jobId="${jobId}" to stop it (the part done is charged).`);

      const status = await texts(client, 'job_status', { jobId });
      expect(status.blocks[0]).toMatch(new RegExp(`^Job ${jobId} \\(web_crawl\\) is (queued|processing)`));
      expect(status.blocks[1]).toContain(`job_status with jobId="${jobId}"`);

      const account = await texts(client, 'account', {});
      // The running crawl holds 5 credits: the text shows what structuredContent does.
      const { id, credits, creditsUsed, creditsResetAt } = account.structured;
      expect(account.blocks[0]).toBe(`Account ${id}: plan Pro, ${credits} credits left of 100 (${creditsUsed} used); the credits renew at ${creditsResetAt}.`);
      expect(account.blocks[1]).toMatch(/^Call job_list to see this key's jobs/);

      const list = await texts(client, 'job_list', { limit: 1 });
      expect(list.blocks[0]).toMatch(new RegExp(`^1 job, newest first:\\n- ${jobId} · web_crawl · (queued|processing)`));
      expect(list.blocks[1]).toMatch(/^That is the last of them\. Call job_status with a jobId for its result\.$/);

      site.releaseAll();
      await jobWhere(server, jobId, (job) => job.status === 'completed');
      const done = await texts(client, 'job_status', { jobId });
      expect(done.blocks[0]).toMatch(new RegExp(`^Job ${jobId} \\(web_crawl\\) completed\\nCrawl of`));
      expect(done.blocks[1]).toBe('[Page 1 of 1: the whole reply.]');
    } finally {
      await client.close();
    }
  }, 60_000);
});
