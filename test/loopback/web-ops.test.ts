/** Web operations through the REST API: map, crawl (job, webhook, credits), scrape, metadata, bad input. */
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { pagePath, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';

const WEBHOOK_SECRET = 'test-webhook-secret-0123456789';

interface Hook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: TestServer;
let indexed: FixtureSite; // 450 pages, gzipped sitemap index
let partial: FixtureSite; // 450 pages, sitemap lists 100
let crawlSiteFixture: FixtureSite; // 300 pages, plain sitemap
let misc: FixtureSite; // special pages
let receiver: http.Server;
let receiverUrl: string;
const hooks: Hook[] = [];
let hookArrived: (hook: Hook) => void = () => undefined;

beforeAll(async () => {
  [indexed, partial, crawlSiteFixture, misc] = await Promise.all([
    startFixtureSite({ pages: 450, sitemap: 'gzip-index' }),
    startFixtureSite({ pages: 450, sitemap: 'plain', sitemapPages: 100 }),
    startFixtureSite({ pages: 300, sitemap: 'plain' }),
    startFixtureSite({ pages: 5, extras: true }),
  ]);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hook = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      hooks.push(hook);
      res.end('ok');
      hookArrived(hook);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startTestServer({
    env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_WEBHOOK_SECRET: WEBHOOK_SECRET, GLEANER_HTTP_TIMEOUT_MS: '5000' },
  });
});

afterAll(async () => {
  await server.close();
  await Promise.all([indexed.close(), partial.close(), crawlSiteFixture.close(), misc.close()]);
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function credits(key: string): Promise<number> {
  return (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
}

async function finished(key: string, jobId: string) {
  const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
  await server.app.services.jobs.waitFor(jobId, me.id, 120_000);
  return (await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key })).body;
}

describe('web_map', () => {
  it('returns all 450 pages of a gzipped sitemap index with limit=500, and exactly 200 by default', async () => {
    const key = await server.createKey('Pro');
    const all = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(indexed.origin + '/')}&limit=500`, { apiKey: key });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-credits-used')).toBe('1');
    const expected = Array.from({ length: 450 }, (_, i) => `${indexed.origin}${pagePath(i + 1)}`);
    expect(new Set(all.body.urls)).toEqual(new Set(expected));
    expect(all.body.urls).toHaveLength(450);

    const byDefault = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(indexed.origin)}`, { apiKey: key });
    expect(byDefault.body.urls).toHaveLength(200);
    expect(new Set(byDefault.body.urls).size).toBe(200);
    expect(indexed.requests.filter((r) => r.startsWith('/private/'))).toEqual([]);
  });

  it('discovers by links the pages no sitemap lists', async () => {
    const key = await server.createKey('Pro');
    const res = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(partial.origin)}&limit=500`, { apiKey: key });
    expect(res.status).toBe(200);
    const urls = res.body.urls as string[];
    expect(urls.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => `${partial.origin}${pagePath(i + 1)}`));
    expect(urls).toContain(`${partial.origin}/page/450`);
    expect(urls.every((u) => u.startsWith(partial.origin) && !u.includes('#') && !u.includes('/private/'))).toBe(true);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls.length).toBeGreaterThanOrEqual(450);
  });
});

describe('web_crawl', () => {
  it('crawls 300 pages recursively: distinct, on the site, robots.txt obeyed, 1 credit a page, one signed webhook', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const firstRequest = crawlSiteFixture.requests.length;
    const hook = new Promise<Hook>((resolve) => (hookArrived = resolve));
    const start = await server.request('POST', '/v1/web/crawl', {
      apiKey: key,
      body: { url: `${crawlSiteFixture.origin}/`, mode: 'recursive', maxPages: 500, webhook: receiverUrl },
    });
    expect(start.status).toBe(202);
    expect(start.body).toMatchObject({ status: 'queued', jobId: expect.any(String), message: expect.any(String) });
    // A job is charged when it ends: its start charges nothing and shows what it reserved.
    expect(start.headers.get('x-credits-used')).toBe('0');
    expect(start.headers.get('x-credits-reserved')).toBe('500');

    const job = await finished(key, start.body.jobId);
    expect(job.status).toBe('completed');
    const pages = job.result.pages as Array<{ url: string; title: string; content: string; urls?: unknown }>;
    expect(pages).toHaveLength(300);
    expect(new Set(pages.map((p) => p.url)).size).toBe(300);
    expect(pages.every((p) => p.url.startsWith(crawlSiteFixture.origin) && !p.url.includes('/private/'))).toBe(true);
    expect(pages.every((p) => p.urls === undefined && p.content.includes('This is the body of page number'))).toBe(true);
    expect(job.result.mode).toBe('recursive');
    expect(job.progress).toMatchObject({ done: 300 });

    const requests = crawlSiteFixture.requests.slice(firstRequest);
    expect(requests.filter((r) => r.startsWith('/private/'))).toEqual([]);
    expect(new Set(requests).size).toBe(requests.length);
    expect(await credits(key)).toBe(before - 300);

    const delivered = await hook;
    const timestamp = delivered.headers['x-gleaner-timestamp'] as string;
    const expectedSignature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(`${timestamp}.${delivered.body}`).digest('hex')}`;
    expect(delivered.headers['x-gleaner-signature']).toBe(expectedSignature);
    const payload = JSON.parse(delivered.body);
    expect(payload).toMatchObject({ jobId: start.body.jobId, status: 'completed' });
    expect(payload.result.pages).toHaveLength(300);
    expect(hooks.filter((h) => JSON.parse(h.body).jobId === start.body.jobId)).toHaveLength(1);
  });

  it('crawls from the sitemap likewise, settling on the pages scraped', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const firstRequest = crawlSiteFixture.requests.length;
    const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin, maxPages: 250, format: 'text' } });
    expect(start.status).toBe(202);
    const job = await finished(key, start.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.result.mode).toBe('sitemap');
    const urls = (job.result.pages as Array<{ url: string; format: string }>).map((p) => p.url);
    expect(urls).toHaveLength(250);
    expect(new Set(urls).size).toBe(250);
    expect(job.result.pages[0].format).toBe('text');
    const requests = crawlSiteFixture.requests.slice(firstRequest);
    expect(new Set(requests).size).toBe(requests.length);
    expect(requests.filter((r) => r.startsWith('/private/'))).toEqual([]);
    expect(await credits(key)).toBe(before - 250);
  });

  it('records failed pages with their error and never fetches a redirect target twice', async () => {
    const key = await server.createKey('Pro');
    const first = misc.requests.length;
    const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: misc.origin, mode: 'recursive', maxPages: 50 } });
    const job = await finished(key, start.body.jobId);
    expect(job.status).toBe('completed');
    const failed = job.result.failed as Array<{ url: string; error: { code: string } }>;
    expect(failed).toEqual(
      expect.arrayContaining([
        { url: `${misc.origin}/fail`, error: expect.objectContaining({ code: 'UPSTREAM_ERROR' }) },
        { url: `${misc.origin}/missing`, error: expect.objectContaining({ code: 'CONTENT_NOT_FOUND' }) },
      ]),
    );
    const requests = misc.requests.slice(first);
    expect(requests.filter((r) => r === '/page/2')).toHaveLength(1);
    expect(requests).not.toContain('/file.bin');
  });

  it('a 50-credit key: a default crawl (100 pages) runs, stops at the balance and says so; an empty balance is 402', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin } });
    expect(start.status).toBe(202);
    expect(start.headers.get('X-Credits-Used')).toBe('0');
    expect(start.headers.get('X-Credits-Reserved')).toBe('50');
    const job = await finished(key, start.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.result.pages).toHaveLength(50);
    expect(job.result.stoppedOn).toBe('credits');
    expect(job.creditsUsed).toBe(50);
    expect(await credits(key)).toBe(0);
    const refused = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin } });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('CREDITS_EXHAUSTED');
  });

  it('takes limit as maxPages (the Supadata SDK) and refuses parameters it does not know, naming them, free', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin, limit: 5 } });
    expect(start.headers.get('X-Credits-Reserved')).toBe('5');
    const job = await finished(key, start.body.jobId);
    expect(job.result.pages.length).toBeLessThanOrEqual(5);
    expect(job.creditsUsed).toBe(job.result.pages.length);
    const unknown = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin, maxPage: 5, depth: 2 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/Unknown parameters "maxPage", "depth"; web_crawl takes: url, mode, maxPages, limit/);
    const both = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin, maxPages: 5, limit: 6 } });
    expect(both.status).toBe(400);
    const query = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(crawlSiteFixture.origin)}&limt=3`, { apiKey: key });
    expect(query.status).toBe(400);
    expect(query.body.error.message).toContain('"limt"');
    expect(await credits(key)).toBe(100 - job.creditsUsed);
  });

  it('needs the Pro plan: a Free key gets 402 UPGRADE_REQUIRED and is charged nothing', async () => {
    const key = await server.createKey('Free');
    const res = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: crawlSiteFixture.origin } });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('UPGRADE_REQUIRED');
    expect(await credits(key)).toBe(100);
  });
});

describe('web_scrape and metadata through REST', () => {
  it('scrapes a page for 1 credit', async () => {
    const key = await server.createKey('Free');
    const res = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${misc.origin}/real/wikipedia/`)}`, { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-used')).toBe('1');
    expect(res.body).toMatchObject({ title: 'Mozilla - Wikipedia', format: 'markdown' });
    expect(res.body.content).toContain('Mozilla');
  });

  it('gives web page metadata for 1 credit', async () => {
    const key = await server.createKey('Free');
    const res = await server.request('GET', `/v1/metadata?url=${encodeURIComponent(`${misc.origin}/page/2`)}`, { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-used')).toBe('1');
    expect(res.body).toMatchObject({ platform: 'web', title: 'Page 2 | Fixture Site', description: 'Description of page 2', language: 'en' });
    expect(res.body).toMatchObject({ type: 'page', id: res.body.url, stats: { views: null, likes: null, comments: null, shares: null }, additionalData: { language: 'en' } });
    expect(res.body.tags).toEqual(expect.any(Array));
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    const key = await server.createKey('Pro');
    const cases: Array<['GET' | 'POST', string, unknown, string]> = [
      ['GET', '/v1/web/scrape', undefined, 'url'],
      ['GET', `/v1/web/scrape?url=${encodeURIComponent('ftp://example.com/file')}`, undefined, 'url'],
      ['GET', `/v1/web/scrape?url=${encodeURIComponent(misc.origin)}&format=pdf`, undefined, 'format'],
      ['GET', `/v1/web/map?url=${encodeURIComponent(misc.origin)}&limit=0`, undefined, 'limit'],
      ['GET', `/v1/web/map?url=${encodeURIComponent(misc.origin)}&limit=501`, undefined, 'limit'],
      ['GET', '/v1/metadata?url=ftp%3A%2F%2Fexample.com', undefined, 'url'],
      ['POST', '/v1/web/crawl', { mode: 'recursive' }, 'url'],
      ['POST', '/v1/web/crawl', { url: misc.origin, maxPages: 501 }, 'maxPages'],
      ['POST', '/v1/web/crawl', { url: misc.origin, format: 'docx' }, 'format'],
      ['POST', '/v1/web/crawl', { url: misc.origin, webhook: 'ftp://example.com/hook' }, 'webhook'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await server.request(method, path, { apiKey: key, body });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('INVALID_REQUEST');
      expect(res.body.error.message, path).toContain(field);
    }
    expect(await credits(key)).toBe(3000);
  });

  it('reports an upstream 404, timeout and binary file clearly, charging nothing', async () => {
    const key = await server.createKey('Free');
    const missing = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${misc.origin}/missing`)}`, { apiKey: key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CONTENT_NOT_FOUND');
    const slow = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${misc.origin}/slow`)}`, { apiKey: key });
    expect(slow.status).toBe(504);
    expect(slow.body.error.code).toBe('UPSTREAM_TIMEOUT');
    const binary = await server.request('GET', `/v1/metadata?url=${encodeURIComponent(`${misc.origin}/file.bin`)}`, { apiKey: key });
    expect(binary.status).toBe(415);
    expect(binary.body.error.code).toBe('UNSUPPORTED_CONTENT');
    const mapMissing = await server.request('GET', `/v1/web/map?url=${encodeURIComponent('http://127.0.0.1:9/')}`, { apiKey: key });
    expect(mapMissing.status).toBeGreaterThanOrEqual(500);
    expect(await credits(key)).toBe(100);
  });
});
