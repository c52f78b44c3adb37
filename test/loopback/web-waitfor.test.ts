/**
 * An invalid `waitFor` selector is a 400 on scrape, crawl and map before anything is fetched, charged
 * or queued (issue 28: a crawl took it and then failed every page in the browser). No browser runs
 * here: the check is the selector's syntax.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';

let server: TestServer;
let site: http.Server;
let origin: string;
let siteRequests = 0;

beforeAll(async () => {
  site = http.createServer((_req, res) => {
    siteRequests += 1;
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><article><p>Hello</p></article></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await server.close();
  site.closeAllConnections();
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
const q = encodeURIComponent;

describe('waitFor with an invalid CSS selector', () => {
  it.each(['div >>> [[', '#123', 'div >', 'a{}'])('%s: 400 INVALID_REQUEST on scrape, map and crawl, nothing fetched, charged or queued', async (selector) => {
    const key = await server.createKey('Pro', { credits: 100 });
    const before = siteRequests;
    const calls = [
      server.request('GET', `/v1/web/scrape?url=${q(`${origin}/`)}&waitFor=${q(selector)}`, { apiKey: key }),
      server.request('GET', `/v1/web/map?url=${q(`${origin}/`)}&waitFor=${q(selector)}`, { apiKey: key }),
      server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${origin}/`, waitFor: selector, maxPages: 5 } }),
    ];
    for (const reply of await Promise.all(calls)) {
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_REQUEST');
      expect(reply.body.error.message).toContain('waitFor');
      expect(reply.body.error.message).toContain('is not a valid CSS selector');
    }
    expect(siteRequests).toBe(before);
    expect(await credits(key)).toBe(100);
    const jobs = await server.request('GET', '/v1/jobs', { apiKey: key });
    if (jobs.status === 200) expect(JSON.stringify(jobs.body)).not.toContain(origin);
  });

  it('over MCP the same: an isError result with INVALID_REQUEST for web_scrape, web_map and web_crawl, charged nothing', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const before = siteRequests;
    const client = await connectMcp(server.baseUrl, key);
    try {
      for (const name of ['web_scrape', 'web_map', 'web_crawl']) {
        const result = await client.callTool({ name, arguments: { url: `${origin}/`, waitFor: 'div >>> [[' } });
        expect(result.isError, name).toBe(true);
        expect(errorEnvelope(result)?.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('is not a valid CSS selector') });
      }
    } finally {
      await client.close();
    }
    expect(siteRequests).toBe(before);
    expect(await credits(key)).toBe(100);
  });

  it('a valid selector and milliseconds are taken (the page is read plainly, no browser needed)', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    for (const waitFor of ['article p', '250']) {
      const reply = await server.request('GET', `/v1/web/scrape?url=${q(`${origin}/`)}&waitFor=${q(waitFor)}&render=never`, { apiKey: key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(JSON.stringify(reply.body)).toContain('Hello');
    }
  });
});
