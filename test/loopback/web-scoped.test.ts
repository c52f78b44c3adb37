/**
 * Scoped crawls and maps through the REST API: include / exclude path globs, maxDepth, subdomains
 * and external hosts (site.test, blog.site.test and other.test on loopback through
 * GLEANER_UPSTREAM_OVERRIDES), map `search`, and every new parameter refused with a 400 for nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { pagePath, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';

interface HostSite {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

/** A small site whose pages link to the hosts a scoped crawl may or may not follow. */
async function startHostSite(pages: Record<string, string>): Promise<HostSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nAllow: /\n');
    }
    const body = pages[path];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${path}</title></head><body><article><h1>${path}</h1><p>${body ?? 'Not found'} with enough words in it to be read as the main text of this page.</p></article></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

let server: TestServer;
let fixture: FixtureSite; // 300 linked pages: page n links n+1, 2n, 2n+1
let main: HostSite; // site.test
let blog: HostSite; // blog.site.test
let other: HostSite; // other.test

beforeAll(async () => {
  [fixture, main, blog, other] = await Promise.all([
    startFixtureSite({ pages: 300, sitemap: 'plain' }),
    startHostSite({
      '/': 'Home <a href="/about">about</a> <a href="http://blog.site.test/post">blog</a> <a href="http://other.test/elsewhere">other</a> <a href="http://10.0.0.1/inside">inside</a>',
      '/about': 'About us',
    }),
    startHostSite({ '/post': 'A blog post <a href="/second">second</a>', '/second': 'Second post' }),
    startHostSite({ '/elsewhere': 'Another site' }),
  ]);
  server = await startTestServer({
    env: {
      GLEANER_ALLOW_PRIVATE_URLS: 'true',
      GLEANER_HTTP_TIMEOUT_MS: '2000',
      // The first match wins and a host matches its subdomains too: blog.site.test comes first.
      GLEANER_UPSTREAM_OVERRIDES: `blog.site.test=${blog.origin},site.test=${main.origin},other.test=${other.origin}`,
    },
  });
});

afterAll(async () => {
  await server.close();
  await Promise.all([fixture.close(), main.close(), blog.close(), other.close()]);
});

async function credits(key: string): Promise<number> {
  return (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
}

async function crawl(key: string, body: Record<string, unknown>) {
  const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body });
  expect(start.status).toBe(202);
  const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
  await server.app.services.jobs.waitFor(start.body.jobId, me.id, 120_000);
  const job = (await server.request('GET', `/v1/jobs/${start.body.jobId}`, { apiKey: key })).body;
  expect(job.status).toBe('completed');
  return job.result as { pages: Array<{ url: string }>; failed: unknown[] };
}

const pathsOf = (result: { pages: Array<{ url: string }> }) => result.pages.map((page) => new URL(page.url).pathname).sort();
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => pagePath(from + i)).sort();
/** Page requests of the fixture site since a point (robots.txt and sitemaps left out). */
const pageRequests = (since: number) => fixture.requests.slice(since).filter((r) => r === '/' || r.startsWith('/page/') || r.startsWith('/private/'));

describe('scoped web_crawl', () => {
  it('never leaves its include pattern, fetching nothing outside it but the start page', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const since = fixture.requests.length;
    const result = await crawl(key, { url: `${fixture.origin}/page/10`, mode: 'recursive', includePaths: ['/page/1*'], maxPages: 100 });
    // From /page/10 the pages under /page/1* reached by links are 10..19 (their other links leave the pattern).
    expect(pathsOf(result)).toEqual(range(10, 19));
    expect(pageRequests(since).every((r) => /^\/page\/1\d*$/.test(r))).toBe(true);
    expect(await credits(key)).toBe(before - 10);
  });

  it('exclude wins over include, and an excluded page is never fetched', async () => {
    const key = await server.createKey('Pro');
    const since = fixture.requests.length;
    const result = await crawl(key, { url: `${fixture.origin}/page/10`, mode: 'recursive', includePaths: ['/page/1*'], excludePaths: ['/page/15'] });
    expect(pathsOf(result)).toEqual(range(10, 14));
    expect(pageRequests(since)).not.toContain('/page/15');
  });

  it('keeps the start page out of the pages when the filters leave it out, still following its links', async () => {
    const key = await server.createKey('Pro');
    const result = await crawl(key, { url: `${fixture.origin}/`, mode: 'recursive', includePaths: ['/page/**'], maxDepth: 1 });
    expect(pathsOf(result)).toEqual([pagePath(2), pagePath(3)].sort());
  });

  it('stops at maxDepth', async () => {
    const key = await server.createKey('Pro');
    const since = fixture.requests.length;
    const shallow = await crawl(key, { url: `${fixture.origin}/`, mode: 'recursive', maxDepth: 1 });
    expect(pathsOf(shallow)).toEqual(['/', '/page/2', '/page/3'].sort());
    expect(new Set(pageRequests(since))).toEqual(new Set(['/', '/page/2', '/page/3']));
    // Depth 2: page 1, its links 2 and 3, and theirs 4, 5, 6, 7.
    const deeper = await crawl(key, { url: `${fixture.origin}/`, mode: 'recursive', maxDepth: 2 });
    expect(pathsOf(deeper)).toEqual(['/', ...range(2, 7)].sort());
    const alone = await crawl(key, { url: `${fixture.origin}/page/10`, mode: 'recursive', maxDepth: 0 });
    expect(pathsOf(alone)).toEqual(['/page/10']);
  });

  it('crawls a subdomain only with allowSubdomains, another site only with allowExternal', async () => {
    const key = await server.createKey('Pro');
    const blogBefore = blog.requests.length;
    const otherBefore = other.requests.length;
    const plain = await crawl(key, { url: 'http://site.test/', mode: 'recursive' });
    expect(plain.pages.map((p) => p.url).sort()).toEqual(['http://site.test/', 'http://site.test/about']);
    expect(blog.requests.slice(blogBefore)).toEqual([]);
    expect(other.requests.slice(otherBefore)).toEqual([]);

    const withBlog = await crawl(key, { url: 'http://site.test/', mode: 'recursive', allowSubdomains: true });
    expect(withBlog.pages.map((p) => p.url).sort()).toEqual(['http://blog.site.test/post', 'http://blog.site.test/second', 'http://site.test/', 'http://site.test/about']);
    // The subdomain's own robots.txt was read.
    expect(blog.requests.slice(blogBefore)).toContain('/robots.txt');
    expect(other.requests.slice(otherBefore)).toEqual([]);

    const external = await crawl(key, { url: 'http://site.test/', mode: 'recursive', allowExternal: true, maxPages: 5 });
    expect(external.pages.map((p) => p.url)).toContain('http://other.test/elsewhere');
    expect(external.pages).toHaveLength(5); // external pages count toward maxPages
    expect(other.requests.slice(otherBefore)).toContain('/robots.txt');
  });

  it('sends external links through the SSRF guard: a private address is skipped, the page that links it kept', async () => {
    // A server without GLEANER_ALLOW_PRIVATE_URLS: the overridden hosts are operator configuration, 10.0.0.1 is not.
    const guarded = await startTestServer({ env: { GLEANER_HTTP_TIMEOUT_MS: '2000', GLEANER_UPSTREAM_OVERRIDES: `blog.site.test=${blog.origin},site.test=${main.origin},other.test=${other.origin}` } });
    try {
      const key = await guarded.createKey('Pro');
      const start = await guarded.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://site.test/', mode: 'recursive', allowExternal: true } });
      expect(start.status).toBe(202);
      const me = (await guarded.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
      await guarded.app.services.jobs.waitFor(start.body.jobId, me.id, 120_000);
      const job = (await guarded.request('GET', `/v1/jobs/${start.body.jobId}`, { apiKey: key })).body;
      expect(job.status).toBe('completed');
      const urls = (job.result.pages as Array<{ url: string }>).map((p) => p.url);
      expect(urls).toContain('http://site.test/');
      expect(urls).toContain('http://other.test/elsewhere');
      expect(urls.some((u) => u.includes('10.0.0.1'))).toBe(false);
      expect(job.result.failed).toEqual([]);
    } finally {
      await guarded.close();
    }
  });
});

describe('web_map search and filters', () => {
  it('puts the URLs matching the search term first', async () => {
    const key = await server.createKey('Pro');
    const res = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(fixture.origin)}&limit=300&search=27`, { apiKey: key });
    expect(res.status).toBe(200);
    const urls = res.body.urls as string[];
    expect(urls).toHaveLength(300);
    expect(urls[0]).toBe(`${fixture.origin}/page/27`);
    // Then the paths holding 27 within a word (127, 270..279), before every other URL.
    const holds = (u: string) => new URL(u).pathname.includes('27');
    const matching = urls.filter(holds).length;
    expect(matching).toBe(1 + 1 + 10 + 1); // 27, 127, 227, 270..279 = 13
    expect(urls.slice(0, matching).every(holds)).toBe(true);
  });

  it('finds the best matches past a small limit', async () => {
    const key = await server.createKey('Pro');
    const res = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(fixture.origin)}&limit=3&search=${encodeURIComponent('page 270')}`, { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-used')).toBe('1');
    expect(res.body.urls).toHaveLength(3);
    expect(res.body.urls[0]).toBe(`${fixture.origin}/page/270`);
  });

  it('lists only what the path filters take', async () => {
    const key = await server.createKey('Pro');
    const query = `url=${encodeURIComponent(fixture.origin)}&limit=300&includePaths=${encodeURIComponent('/page/1*')}&excludePaths=${encodeURIComponent('/page/1')}`;
    const res = await server.request('GET', `/v1/web/map?${query}`, { apiKey: key });
    expect(res.status).toBe(200);
    const paths = (res.body.urls as string[]).map((u) => new URL(u).pathname);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => /^\/page\/1\d*$/.test(p))).toBe(true);
    expect(new Set(paths)).toEqual(new Set(Array.from({ length: 300 }, (_, i) => pagePath(i + 1)).filter((p) => /^\/page\/1\d*$/.test(p))));
  });
});

describe('new parameters out of bounds', () => {
  const tooMany = Array.from({ length: 21 }, (_, i) => `/p${i}`);
  const crawlCases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a pattern not starting with /', { includePaths: ['blog/**'] }, /includePaths.*start with/s],
    ['a pattern with three stars', { excludePaths: ['/a/***'] }, /excludePaths.*two "\*"/s],
    ['too many patterns', { includePaths: tooMany }, /includePaths/],
    ['a pattern too long', { includePaths: [`/${'a'.repeat(200)}`] }, /includePaths/],
    ['an empty pattern', { excludePaths: [''] }, /excludePaths/],
    ['patterns not in a list', { includePaths: '/blog/**' }, /includePaths/],
    ['maxDepth above 25', { maxDepth: 26 }, /maxDepth/],
    ['maxDepth below 0', { maxDepth: -1 }, /maxDepth/],
    ['maxDepth not whole', { maxDepth: 1.5 }, /maxDepth/],
    ['allowSubdomains not a boolean', { allowSubdomains: 'yes' }, /allowSubdomains/],
    ['allowExternal not a boolean', { allowExternal: 1 }, /allowExternal/],
  ];
  for (const [what, extra, message] of crawlCases) {
    it(`web_crawl refuses ${what} with a 400, charging and queuing nothing`, async () => {
      const key = await server.createKey('Pro');
      const before = await credits(key);
      const jobsBefore = (await server.request('GET', '/v1/jobs', { apiKey: key })).body;
      const res = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${fixture.origin}/`, ...extra } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(message);
      expect(await credits(key)).toBe(before);
      expect((await server.request('GET', '/v1/jobs', { apiKey: key })).body).toEqual(jobsBefore);
    });
  }

  it('over MCP too: an error result with the same code, nothing charged', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const client = await connectMcp(server.baseUrl, key);
    try {
      const crawlResult = await client.callTool({ name: 'web_crawl', arguments: { url: `${fixture.origin}/`, includePaths: ['no-slash'], maxDepth: 99 } });
      expect(crawlResult.isError).toBe(true);
      expect(errorEnvelope(crawlResult).error.code).toBe('INVALID_REQUEST');
      expect(errorEnvelope(crawlResult).error.message).toMatch(/includePaths/);
      const mapResult = await client.callTool({ name: 'web_map', arguments: { url: fixture.origin, search: 'x'.repeat(101) } });
      expect(mapResult.isError).toBe(true);
      expect(errorEnvelope(mapResult).error.code).toBe('INVALID_REQUEST');
    } finally {
      await client.close();
    }
    expect(await credits(key)).toBe(before);
  });

  const mapCases: Array<[string, string, RegExp]> = [
    ['a search term over 100 characters', `search=${'a'.repeat(101)}`, /search/],
    ['an empty search term', 'search=', /search/],
    ['a bad path pattern', `includePaths=${encodeURIComponent('no-slash')}`, /includePaths/],
  ];
  for (const [what, query, message] of mapCases) {
    it(`web_map refuses ${what} with a 400, charging nothing`, async () => {
      const key = await server.createKey('Pro');
      const before = await credits(key);
      const res = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(fixture.origin)}&${query}`, { apiKey: key });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(message);
      expect(await credits(key)).toBe(before);
    });
  }
});
