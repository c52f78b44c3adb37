/** Cancel and list: DELETE /v1/jobs/{id}, the MCP client's cancellation, GET /v1/jobs. */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { TEST_OPERATIONS, gates } from '../support/test-operations.js';

const env = { GLEANER_ALLOW_PRIVATE_URLS: 'true' };
let server: TestServer | undefined;
let site: GatedSite | undefined;
afterEach(async () => {
  await site?.close();
  await server?.close();
  site = server = undefined;
  gates.removeAllListeners('step');
});

/** Resolves once the job, running in this process, reports `pages` pages done. */
function pagesDone(s: TestServer, jobId: string, ownerId: string, pages: number): Promise<void> {
  return new Promise((resolve) => void s.app.services.jobs.waitFor(jobId, ownerId, 60_000, (p) => p.done >= pages && resolve()));
}

describe('cancelling a job', () => {
  it('DELETE on a running crawl: cancelled at the next page, the pages scraped are charged, the rest refunded', async () => {
    server = await startTestServer({ env });
    site = await startGatedSite(10);
    const key = await server.createKey('Pro', { credits: 100 });
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
    const started = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${site.origin}/`, maxPages: 10 } });
    expect(started.status).toBe(202);
    expect(started.headers.get('X-Credits-Used')).toBe('0');
    expect(started.headers.get('X-Credits-Reserved')).toBe('10');
    const { jobId } = started.body;
    await site.requestedAtLeast(4);
    site.release(3);
    await pagesDone(server, jobId, me.id, 3);

    const cancelled = await server.request('DELETE', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ jobId, status: 'cancelled', error: null });
    expect(cancelled.body.result.pages).toHaveLength(3);
    expect(cancelled.body.result.stopped).toBe(true);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(97);
    // Cancelling again changes nothing.
    expect((await server.request('DELETE', `/v1/jobs/${jobId}`, { apiKey: key })).body.status).toBe('cancelled');
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(97);
  });

  it('a queued job is cancelled at once and refunded; a stranger gets 404', async () => {
    server = await startTestServer({ env: { GLEANER_JOB_CONCURRENCY: '1' }, operations: TEST_OPERATIONS });
    const key = await server.createKey('Free');
    const stranger = await server.createKey('Free');
    const running = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 1 } });
    const queued = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 3 } });
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(96);
    expect((await server.request('DELETE', `/v1/jobs/${queued.body.jobId}`, { apiKey: stranger })).status).toBe(404);
    const cancelled = await server.request('DELETE', `/v1/jobs/${queued.body.jobId}`, { apiKey: key });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', result: null, error: null });
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(99);
    // The running one goes on; the cancelled one never starts.
    while (gates.listenerCount('step') === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    gates.emit('step');
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
    expect((await server.app.services.jobs.waitFor(running.body.jobId, me.id, 5_000)).status).toBe('completed');
    await server.app.services.jobs.idle();
    expect((await server.app.services.jobs.get(queued.body.jobId, me.id)).status).toBe('cancelled');
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(99);
  });

  it("the MCP client's cancellation of web_crawl cancels the job: pages scraped charged, the rest refunded", async () => {
    server = await startTestServer({ env });
    site = await startGatedSite(10);
    const key = await server.createKey('Pro', { credits: 100 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const abort = new AbortController();
      let done = 0;
      const call = client
        .callTool({ name: 'web_crawl', arguments: { url: `${site.origin}/`, maxPages: 10 } }, undefined, {
          signal: abort.signal,
          onprogress: (p) => {
            done = p.progress;
            if (done >= 2) abort.abort();
          },
        })
        .catch((error: unknown) => error);
      await site.requestedAtLeast(3);
      site.release(2);
      expect(await call).toBeInstanceOf(Error);
      expect(done).toBe(2);
      // The job id never reached the client: the job list finds it.
      let job: any;
      do {
        job = (await server.request('GET', '/v1/jobs', { apiKey: key })).body.jobs[0];
        if (job.status !== 'cancelled') await new Promise((resolve) => setTimeout(resolve, 50));
      } while (job.status !== 'cancelled');
      expect(job).toMatchObject({ operation: 'web_crawl', status: 'cancelled', error: null });
      const full = await server.request('GET', `/v1/jobs/${job.jobId}`, { apiKey: key });
      expect(full.body.result.pages).toHaveLength(2);
      expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(98);
    } finally {
      await client.close();
    }
  });
});

describe('listing jobs', () => {
  it("GET /v1/jobs lists the caller's jobs newest first, without results, in pages", async () => {
    server = await startTestServer({ operations: TEST_OPERATIONS });
    const key = await server.createKey('Free');
    const other = await server.createKey('Free');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 1 } })).body.jobId);
    await server.request('POST', '/v1/test/job', { apiKey: other, body: { steps: 1 } });
    const first = await server.request('GET', '/v1/jobs?limit=2', { apiKey: key });
    expect(first.status).toBe(200);
    expect(first.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([ids[4], ids[3]]);
    expect(first.body.jobs[0]).not.toHaveProperty('result');
    const second = await server.request('GET', `/v1/jobs?limit=2&cursor=${first.body.nextCursor}`, { apiKey: key });
    expect(second.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([ids[2], ids[1]]);
    const last = await server.request('GET', `/v1/jobs?limit=2&cursor=${second.body.nextCursor}`, { apiKey: key });
    expect(last.body).toMatchObject({ nextCursor: null });
    expect(last.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([ids[0]]);
    expect((await server.request('GET', '/v1/jobs?cursor=abc', { apiKey: key })).status).toBe(400);
    // Let every job finish (a step released wakes all the jobs waiting for one).
    let finished = false;
    void server.app.services.jobs.idle().then(() => (finished = true));
    while (!finished) {
      gates.emit('step');
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  });
});
