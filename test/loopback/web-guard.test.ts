/**
 * The SSRF guard on the web operations, as configured by default (GLEANER_ALLOW_PRIVATE_URLS unset).
 * The fixture site is reached only through an upstream override (operator configuration), and a
 * test resolver makes `rebound.test` resolve to 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import type { Resolver } from '../../src/net/http.js';

let server: TestServer;
let site: FixtureSite;
let key: string;
let hookHits = 0;
let hookServer: http.Server;
let hookPort: number;

const resolver: Resolver = async (host) => {
  if (host === 'rebound.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`unknown host ${host}`), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  site = await startFixtureSite({ pages: 5 });
  hookServer = http.createServer((_req, res) => {
    hookHits++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookPort = (hookServer.address() as AddressInfo).port;
  server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `site.test=${site.origin}` }, resolver });
  key = await server.createKey('Pro');
});

afterAll(async () => {
  await server.close();
  await site.close();
  await new Promise<void>((resolve) => hookServer.close(() => resolve()));
});

const blocked = () => [
  `http://127.0.0.1:${site.port}/`,
  `http://localhost:${site.port}/`,
  `http://[::1]:${site.port}/`,
  'http://169.254.169.254/latest/meta-data/',
  `http://0x7f000001:${site.port}/`,
  `http://2130706433:${site.port}/`,
  `http://127.1:${site.port}/`,
  `http://[::ffff:127.0.0.1]:${site.port}/`,
  `http://rebound.test:${site.port}/`,
];

describe('SSRF guard on by default', () => {
  it('scrape, map and metadata refuse loopback, metadata and odd spellings with 400 URL_NOT_ALLOWED; nothing is fetched or charged', async () => {
    const before = site.requests.length;
    for (const url of blocked()) {
      for (const path of ['/v1/web/scrape', '/v1/web/map', '/v1/metadata']) {
        const res = await server.request('GET', `${path}?url=${encodeURIComponent(url)}`, { apiKey: key });
        expect(res.status, `${path} ${url}`).toBe(400);
        expect(res.body.error.code, `${path} ${url}`).toBe('URL_NOT_ALLOWED');
      }
    }
    expect(site.requests.length).toBe(before);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000);
  });

  it('crawl refuses the same URLs, as start or webhook, at submission (400 before any charge)', async () => {
    const before = site.requests.length;
    for (const url of blocked()) {
      const asStart = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url } });
      expect(asStart.status, url).toBe(400);
      expect(asStart.body.error.code, url).toBe('URL_NOT_ALLOWED');
      const webhook = url.replace(String(site.port), String(hookPort));
      const asWebhook = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://site.test/', webhook } });
      expect(asWebhook.status, webhook).toBe(400);
      expect(asWebhook.body.error.code, webhook).toBe('URL_NOT_ALLOWED');
    }
    expect(site.requests.length).toBe(before);
    expect(hookHits).toBe(0);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000);
  });

  it('follows the override (operator config) but refuses a redirect to a blocked address', async () => {
    const ok = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent('http://site.test/page/2')}`, { apiKey: key });
    expect(ok.status).toBe(200);
    expect(ok.body.url).toBe('http://site.test/page/2');
    for (const path of ['/v1/web/scrape', '/v1/metadata', '/v1/web/map']) {
      const res = await server.request('GET', `${path}?url=${encodeURIComponent('http://site.test/to-loopback')}`, { apiKey: key });
      if (path === '/v1/web/map') {
        // The map reads robots.txt and sitemaps of site.test, then the redirect is refused, not followed.
        expect(res.status).toBeLessThan(500);
      } else {
        expect(res.status, path).toBe(400);
        expect(res.body.error.code, path).toBe('URL_NOT_ALLOWED');
      }
    }
    const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://site.test/to-loopback', mode: 'recursive', maxPages: 3 } });
    expect(start.status).toBe(202);
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
    const job = await server.app.services.jobs.waitFor(start.body.jobId, me.id, 30_000);
    expect(job.status).toBe('completed');
    expect((job.result as { pages: unknown[] }).pages).toEqual([]);
    expect(site.requests).not.toContain('/secret');
  });
});
