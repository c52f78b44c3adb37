/**
 * Job results bounded in size (issue 39, the review's High finding 2: a batch of 50 pages of 9 MB
 * made one 470 MB record that every GET returned). A loopback site serves large pages; a server
 * configured with small bounds keeps each page's text and the whole result within them, says where
 * it cut, and answers another key meanwhile.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

const PAGES = 8;
/** Characters of text on each page: more than one page may keep, and together far more than a result. */
const PAGE_TEXT = 120_000;
const ITEM_CHARS = 30_000;
const TOTAL_CHARS = 100_000;

let site: http.Server;
let origin: string;
let server: TestServer;

beforeAll(async () => {
  const paragraph = `<p>${'All work and no play makes a long page. '.repeat(50)}</p>`;
  const body = paragraph.repeat(Math.ceil(PAGE_TEXT / 2_000));
  site = http.createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>Long ${req.url}</title></head><body><article><h1>Long page ${req.url}</h1>${body}</article></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_JOB_RESULT_ITEM_CHARS: String(ITEM_CHARS), GLEANER_JOB_RESULT_CHARS: String(TOTAL_CHARS) } });
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('a large batch', () => {
  it('is recorded and answered within the bounds, each page cut with a marker, while another key is answered', async () => {
    const key = await server.createKey('Pro');
    const other = await server.createKey('Free');
    const urls = Array.from({ length: PAGES }, (_, i) => `${origin}/page/${i}`);
    const start = await server.request('POST', '/v1/web/scrape/batch', { apiKey: key, body: { urls } });
    expect(start.status, JSON.stringify(start.body)).toBe(202);
    const owner = (await server.app.services.accounts.authenticate(key)).id;
    await server.app.services.jobs.waitFor(start.body.jobId, owner, 300_000);

    const [job, me] = await Promise.all([
      server.request('GET', `/v1/jobs/${start.body.jobId}`, { apiKey: key }),
      server.request('GET', '/v1/me', { apiKey: other }),
    ]);
    expect(me.status).toBe(200);
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'completed', creditsUsed: PAGES, result: { stats: { total: PAGES, succeeded: PAGES } } });
    // The reply: within the total, plus the envelope, URLs, titles and markers.
    expect(JSON.stringify(job.body).length).toBeLessThan(TOTAL_CHARS + 10_000);
    for (const item of job.body.result.results) {
      expect(item.page.content.length).toBeLessThanOrEqual(ITEM_CHARS + 300);
      expect(item.page.content).toMatch(/\[Cut: this text has \d+ characters, and a job's result keeps \d+ of each\. Ask for this item alone \(web_scrape for a page\) to read all of it\.\]$/);
    }
    // The record itself is the bounded value, so the SDK's results route and the webhook show the same.
    const record = await server.app.services.jobs.record(start.body.jobId);
    expect(JSON.stringify(record).length).toBeLessThan(TOTAL_CHARS + 10_000);
    const part = await server.request('GET', `/v1/web/scrape/batch/${start.body.jobId}?limit=${PAGES}`, { apiKey: key });
    expect(part.body.results.map((item: { page: { content: string } }) => item.page.content)).toEqual(job.body.result.results.map((item: { page: { content: string } }) => item.page.content));
  });

  it('a page read alone is whole: the way the marker names', async () => {
    const key = await server.createKey('Pro');
    const reply = await server.request('GET', `/v1/web/scrape?${new URLSearchParams({ url: `${origin}/page/0` })}`, { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body.content.length).toBeGreaterThan(PAGE_TEXT * 0.9);
    expect(reply.body.content).not.toMatch(/\[Cut:/);
  });
});
