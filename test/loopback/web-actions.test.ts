/**
 * web_scrape's browser actions and screenshots (issue 31, part 4), through a real Chromium:
 *   - a "Load more" button clicked twice reveals items that are then in the content (and are not without the clicks);
 *   - a viewport screenshot is a PNG of the viewport's size (its IHDR read), fetched over REST by the
 *     same key and refused to another; over MCP it is an image block of the result;
 *   - a click that sends the page to a loopback address is refused by the guard: the loopback server
 *     sees nothing, the call is 400 URL_NOT_ALLOWED and charged nothing;
 *   - an action whose selector never appears is a 400 naming its index, charged nothing;
 *   - every out-of-bounds parameter is a 400, charged nothing.
 * The site is served from loopback under the "public" name actions.test (GLEANER_UPSTREAM_OVERRIDES);
 * the SSRF guard stays on for every other host. Needs a Chromium (Debian's in CI); without one the
 * browser tests are skipped and say why (the bounds tests need none).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { locateBrowser } from '../../src/web/render/locate.js';

const browser = locateBrowser({ browserPath: process.env.GLEANER_BROWSER_PATH, wsUrl: process.env.GLEANER_BROWSER_WS_URL });
const noBrowser = browser.kind === 'none' ? browser.reason : undefined;
if (noBrowser) console.warn(`web-actions: browser tests skipped: ${noBrowser}`);

const page = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const INTRO = '<p>The harbour log lists every ship that called in the winter of 1911, three at a time, as the clerk copied them out.</p>';

let site: http.Server;
let siteOrigin: string;
let secret: http.Server;
let secretOrigin: string;
const secretHits: string[] = [];
const moreRequests: string[] = [];

beforeAll(async () => {
  secret = http.createServer((req, res) => {
    secretHits.push(req.url ?? '');
    res.end('<html><body>TOP-SECRET-VALUE</body></html>');
  });
  await new Promise<void>((resolve) => secret.listen(0, '127.0.0.1', resolve));
  secretOrigin = `http://127.0.0.1:${(secret.address() as AddressInfo).port}`;

  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://actions.test');
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (url.pathname === '/load-more') {
      // Three items, and a button that fetches three more a click (the page's own XHR, through the guarded client).
      return html(
        page(
          'Harbour log',
          `<main><h1>Harbour log</h1>${INTRO}<ul id="items"><li>Ship 1: the Agnes</li><li>Ship 2: the Brora</li><li>Ship 3: the Cromarty</li></ul>
          <button id="more">Load more</button></main>
          <script>
            let next = 2;
            document.getElementById('more').addEventListener('click', async () => {
              const items = await (await fetch('/more?page=' + next++)).json();
              for (const item of items) { const li = document.createElement('li'); li.textContent = item; document.getElementById('items').append(li); }
            });
          </script>`,
        ),
      );
    }
    if (url.pathname === '/more') {
      moreRequests.push(url.search);
      const n = Number(url.searchParams.get('page'));
      const first = (n - 1) * 3 + 1;
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([0, 1, 2].map((i) => `Ship ${first + i}: loaded on page ${n}`)));
    }
    if (url.pathname === '/search') {
      // A form read by script: what is typed and the key pressed show up in the page.
      return html(
        page(
          'Search',
          `<main><h1>Search the log</h1>${INTRO}<input id="q"><p id="out">nothing searched</p></main>
          <script>document.getElementById('q').addEventListener('keydown', (e) => { if (e.key === 'Enter') document.getElementById('out').textContent = 'searched for ' + e.target.value; });</script>`,
        ),
      );
    }
    if (url.pathname === '/long') {
      const paragraphs = Array.from({ length: 40 }, (_, i) => `<p>Entry ${i + 1}: ${INTRO.replace(/<\/?p>/g, '')}</p>`).join('');
      return html(page('Long log', `<main><h1>Long log</h1>${paragraphs}</main>`));
    }
    if (url.pathname === '/tall') return html(page('Tall', `<main><h1>Tall</h1>${INTRO}<div style="height:3000px">a tall page</div></main>`));
    if (url.pathname === '/go-secret') {
      return html(page('Leaving', `<main><h1>Leaving</h1>${INTRO}<a id="go" href="${secretOrigin}/secret">the secret</a></main>`));
    }
    return html(page('Plain', `<main><h1>Plain</h1>${INTRO}</main>`));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const server of [site, secret]) {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  }
});

/** The width and height a PNG's header (IHDR, its first chunk) declares. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'PNG signature').toBe(true);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const scrapeUrl = (params: Record<string, string | string[]>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) for (const v of [value].flat()) search.append(name, v);
  return `/v1/web/scrape?${search}`;
};

describe('out-of-bounds actions and screenshots: 400, charged nothing (no browser needed)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `actions.test=${siteOrigin}` } });
  }, 60_000);
  afterAll(() => server?.close());

  const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

  it.each([
    ['21 actions', { actions: Array.from({ length: 21 }, () => 'scroll') }, /actions/],
    ['an unknown verb, named by its index', { actions: ['scroll', 'hover:#x'] }, /actions\[1\].*"hover" is not an action/],
    ['a bad selector', { actions: ['click:div >'] }, /actions\[0\].*not a valid CSS selector/],
    ['type without text', { actions: ['type:#q'] }, /actions\[0\].*type:<css>=<text>/],
    ['a wait over 15 s', { actions: ['wait:20000'] }, /actions\[0\].*1 to 15000 milliseconds/],
    ['waits adding up over 15 s', { actions: ['wait:9000', 'wait:9000'] }, /add up to 18000 ms/],
    ['a scroll too far', { actions: ['scroll:down:1000000'] }, /actions\[0\].*pixels/],
    ['a key that is none', { actions: ['press:Enter now'] }, /actions\[0\].*is not a key/],
    ['an action too long', { actions: [`click:#${'a'.repeat(1001)}`] }, /actions/],
    ['a screenshot kind that does not exist', { screenshot: 'huge' }, /screenshot/],
    ['actions with render=never', { actions: ['scroll'], render: 'never' }, /render=never/],
    ['a screenshot with render=never', { screenshot: 'viewport', render: 'never' }, /render=never/],
  ])('%s', async (_name, params, message) => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/plain', ...(params as Record<string, string | string[]>) }), { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toMatch(message);
    expect(await credits(key)).toBe(50);
  });

  it('over MCP the same: an isError result naming the action, charged nothing', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const result = await client.callTool({ name: 'web_scrape', arguments: { url: 'http://actions.test/plain', actions: ['click:#more', 'jump:high'] } });
      expect(result.isError).toBe(true);
      expect(errorEnvelope(result)?.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/actions\[1\]/) });
    } finally {
      await client.close();
    }
    expect(await credits(key)).toBe(50);
  });

  it('a screenshot id that is not one is 404', async () => {
    const key = await server.createKey('Free');
    const res = await fetch(`${server.baseUrl}/v1/web/screenshots/not-an-id`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('NOT_FOUND');
  });
});

describe.skipIf(Boolean(noBrowser))('actions and screenshots in a real browser', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: { GLEANER_UPSTREAM_OVERRIDES: `actions.test=${siteOrigin}`, GLEANER_RENDER_TIMEOUT_MS: '120000', GLEANER_HTTP_TIMEOUT_MS: '10000' },
    });
  }, 60_000);
  afterAll(() => server?.close());

  const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

  it('"Load more" clicked twice: items 4 to 9 are in the content, which they are not without the clicks; 2 credits', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const without = await server.request('GET', scrapeUrl({ url: 'http://actions.test/load-more', render: 'always', onlyMainContent: 'false' }), { apiKey: key });
    expect(without.status, JSON.stringify(without.body)).toBe(200);
    expect(without.body.content).toContain('Ship 3: the Cromarty');
    expect(without.body.content).not.toContain('Ship 4');

    const before = moreRequests.length;
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/load-more', actions: ['click:#more', 'click:#more'], onlyMainContent: 'false' }), { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rendered).toBe(true);
    for (let i = 4; i <= 9; i++) expect(res.body.content).toContain(`Ship ${i}: loaded on page ${i <= 6 ? 2 : 3}`);
    expect(res.body.content).not.toContain('Ship 10');
    expect(moreRequests.slice(before)).toEqual(['?page=2', '?page=3']);
    // Actions make the page rendered under render=auto: 1 + 1 credit, no screenshot.
    expect(res.headers.get('x-credits-used')).toBe('2');
    expect(res.body.screenshot).toBeUndefined();
  }, 300_000);

  it('type, press, scroll and wait run in order', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/search', actions: ['type:#q=lighthouse keepers', 'press:Enter', 'scroll:bottom', 'wait:#out', 'wait:50'], onlyMainContent: 'false' }), {
      apiKey: key,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toContain('searched for lighthouse keepers');
  }, 300_000);

  it('POST takes the same input as JSON: a typed step may hold commas', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('POST', '/v1/web/scrape', {
      apiKey: key,
      body: { url: 'http://actions.test/search', actions: ['type:#q=Hello, world', 'press:Enter'], onlyMainContent: false },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toContain('searched for Hello, world');
  }, 300_000);

  it('a viewport screenshot: a PNG of the viewport (1280 x 900), fetched by the same key only; 3 credits', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/plain', screenshot: 'viewport' }), { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toContain('The harbour log lists every ship');
    expect(res.body.screenshot).toMatchObject({ width: 1280, height: 900, url: expect.stringMatching(new RegExp(`^${server.baseUrl}/v1/web/screenshots/[\\w-]{22}$`)) });
    expect(Date.parse(res.body.screenshot.expiresAt)).toBeGreaterThan(Date.now());
    expect(res.headers.get('x-credits-used')).toBe('3');

    const png = await fetch(res.body.screenshot.url, { headers: { 'x-api-key': key } });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('x-credits-used')).toBe('0');
    expect(pngSize(Buffer.from(await png.arrayBuffer()))).toEqual({ width: 1280, height: 900 });

    const other = await server.createKey('Pro');
    const refused = await fetch(res.body.screenshot.url, { headers: { 'x-api-key': other } });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe('NOT_FOUND');
    const anonymous = await fetch(res.body.screenshot.url);
    expect(anonymous.status).toBe(401);
    expect(await credits(key)).toBe(47);
  }, 300_000);

  it('a full-page screenshot is as tall as the page', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/tall', screenshot: 'fullPage' }), { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const png = Buffer.from(await (await fetch(res.body.screenshot.url, { headers: { 'x-api-key': key } })).arrayBuffer());
    const size = pngSize(png);
    expect(size.width).toBe(1280);
    expect(size.height).toBeGreaterThan(3000);
    expect(size).toEqual({ width: res.body.screenshot.width, height: res.body.screenshot.height });
  }, 300_000);

  it('over MCP the screenshot is an image block (once, after the text), and structuredContent names its URL', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const result = (await client.callTool({ name: 'web_scrape', arguments: { url: 'http://actions.test/plain', screenshot: 'viewport' } })) as any;
      expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
      const images = result.content.filter((block: any) => block.type === 'image');
      expect(images).toHaveLength(1);
      expect(images[0].mimeType).toBe('image/png');
      expect(pngSize(Buffer.from(images[0].data, 'base64'))).toEqual({ width: 1280, height: 900 });
      expect(result.content[0].type).toBe('text');
      expect(result.content.filter((block: any) => block.type === 'text').map((block: any) => block.text).join('\n')).toContain('The harbour log lists every ship');
      expect(result.structuredContent.screenshot).toMatchObject({ width: 1280, height: 900, url: expect.stringMatching(/\/v1\/web\/screenshots\/[\w-]{22}$/) });
    } finally {
      await client.close();
    }
    expect(await credits(key)).toBe(47);
  }, 300_000);

  it('over MCP a reply in pages carries the image on its first page only', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const first = (await client.callTool({ name: 'web_scrape', arguments: { url: 'http://actions.test/long', screenshot: 'viewport', maxChars: 1000 } })) as any;
      expect(first.isError, JSON.stringify(first.content).slice(0, 500)).toBeFalsy();
      expect(first.content.filter((block: any) => block.type === 'image')).toHaveLength(1);
      const cursor = first.structuredContent.nextCursor;
      expect(typeof cursor).toBe('string');
      const second = (await client.callTool({ name: 'web_scrape', arguments: { cursor } })) as any;
      expect(second.isError, JSON.stringify(second.content).slice(0, 500)).toBeFalsy();
      expect(second.content.every((block: any) => block.type === 'text')).toBe(true);
      expect(second.content.map((block: any) => block.text).join('\n')).toContain('Entry');
    } finally {
      await client.close();
    }
    // The later page is read from the kept reply: only the first call was charged.
    expect(await credits(key)).toBe(47);
  }, 300_000);

  it('a click that sends the page to a loopback address is refused by the guard: 400 URL_NOT_ALLOWED, the server sees nothing, nothing charged', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/go-secret', actions: ['click:#go', 'wait:100'] }), { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
    expect(JSON.stringify(res.body)).not.toContain('TOP-SECRET-VALUE');
    expect(secretHits).toEqual([]);
    expect(await credits(key)).toBe(50);
  }, 300_000);

  it('an action whose selector never appears: 400 naming its index, charged nothing', async () => {
    const key = await server.createKey('Pro', { credits: 50 });
    const res = await server.request('GET', scrapeUrl({ url: 'http://actions.test/load-more', actions: ['click:#more', 'click:#no-such-button'], screenshot: 'viewport' }), { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/^actions\[1\] \(click "#no-such-button"\)/);
    expect(await credits(key)).toBe(50);
  }, 300_000);
});
