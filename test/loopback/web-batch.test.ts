/**
 * web_scrape_batch (issue 31.2) and changeTracking (31.6) on loopback: a site served as batch.test
 * through GLEANER_UPSTREAM_OVERRIDES with the SSRF guard on (so a private address is refused per
 * URL), a webhook receiver as hooks.test. Credits are read from /v1/me before and after each call.
 */
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { changeKey } from '../../src/web/changes.js';

interface Site {
  origin: string;
  server: http.Server;
}

/** The text of /changing: the test edits it between scrapes. */
let changing = ['First paragraph of the tracked page, long enough to be the main text here.', 'A second paragraph that stays the same.', 'A third paragraph about the weather today.'];
/** Requests to /hang, answered never (the client's timeout ends them). */
const hanging: http.ServerResponse[] = [];
/** Requests to /held/N, answered when the test says (see heldArrived). */
const held: http.ServerResponse[] = [];
const heldWaiters: Array<() => void> = [];

function article(title: string, paragraphs: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><nav>Menu</nav><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article></body></html>`;
}

async function listen(handler: http.RequestListener): Promise<Site> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const close = (site: Site) =>
  new Promise<void>((resolve) => {
    site.server.closeAllConnections();
    site.server.close(() => resolve());
  });

interface Delivery {
  headers: http.IncomingHttpHeaders;
  raw: string;
}
const deliveries: Delivery[] = [];
const waiting: Array<(delivery: Delivery) => void> = [];

let site: Site;
let hooks: Site;
let server: TestServer;
const SECRET = 'batch-test-webhook-secret-0123456789';

beforeAll(async () => {
  site = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const page = /^\/page\/(\d+)$/.exec(path);
    if (page) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(article(`Page ${page[1]}`, [`This is page number ${page[1]} of the batch, with words enough to be read as its main text by the extractor.`]));
    }
    if (path === '/changing') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(article('Tracked page', changing));
    }
    if (path === '/image.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    }
    if (path === '/hang') {
      hanging.push(res);
      return;
    }
    if (path.startsWith('/held/')) {
      held.push(res);
      heldWaiters.splice(0).forEach((wake) => wake());
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><body>Not found</body></html>');
  });
  hooks = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery = { headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') };
      deliveries.push(delivery);
      res.end('ok');
      waiting.shift()?.(delivery);
    });
  });
  server = await startTestServer({
    env: {
      GLEANER_UPSTREAM_OVERRIDES: `batch.test=${site.origin},hooks.test=${hooks.origin}`,
      GLEANER_WEBHOOK_SECRET: SECRET,
      GLEANER_MCP_WAIT_SECONDS: '300',
    },
  });
}, 60_000);

afterAll(async () => {
  for (const res of [...hanging, ...held]) res.destroy();
  await server.close();
  await Promise.all([close(site), close(hooks)]);
});

const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
const accountOf = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
const pageUrl = (n: number) => `http://batch.test/page/${n}`;

/** Starts a batch over REST and waits for its job to end; the job as GET /v1/jobs/{id} shows it. */
async function batch(key: string, body: Record<string, unknown>) {
  const start = await server.request('POST', '/v1/web/scrape/batch', { apiKey: key, body });
  expect(start.status, JSON.stringify(start.body)).toBe(202);
  await server.app.services.jobs.waitFor(start.body.jobId, await accountOf(key), 300_000);
  const job = (await server.request('GET', `/v1/jobs/${start.body.jobId}`, { apiKey: key })).body;
  expect(job.status).toBe('completed');
  return job as { jobId: string; creditsUsed: number; result: { results: Array<{ url: string; page?: any; error?: { code: string; message: string } }>; stats: any; creditsUsed: number; stoppedOn?: string } };
}

/** Seventeen pages and three that fail: a 404, a private address (the guard is on), an image. */
const TWENTY = [
  ...Array.from({ length: 8 }, (_, i) => pageUrl(i + 1)),
  'http://batch.test/missing',
  ...Array.from({ length: 5 }, (_, i) => pageUrl(i + 9)),
  'http://127.0.0.1:9/private',
  ...Array.from({ length: 4 }, (_, i) => pageUrl(i + 14)),
  'http://batch.test/image.png',
];

describe('web_scrape_batch over REST', () => {
  it('scrapes 20 URLs with 3 failing: 17 credits exactly, each failure reported with its code, in the order given', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const job = await batch(key, { urls: TWENTY, format: 'text' });
    const { results, stats } = job.result;
    expect(results.map((item) => item.url)).toEqual(TWENTY);
    expect(stats, JSON.stringify(results.filter((item) => item.error))).toMatchObject({ total: 20, succeeded: 17, failed: 3 });
    const failures = Object.fromEntries(results.filter((item) => item.error).map((item) => [item.url, item.error!.code]));
    expect(failures).toEqual({ 'http://batch.test/missing': 'CONTENT_NOT_FOUND', 'http://127.0.0.1:9/private': 'URL_NOT_ALLOWED', 'http://batch.test/image.png': 'UNSUPPORTED_CONTENT' });
    for (const item of results.filter((item) => item.error)) expect(item.error!.message.length).toBeGreaterThan(10);
    for (const item of results.filter((item) => item.page)) {
      const n = /\/page\/(\d+)$/.exec(item.url)![1];
      expect(item.page.content).toContain(`This is page number ${n} of the batch`);
      expect(item.page.format).toBe('text');
      expect(item.page.changeTracking).toBeUndefined();
    }
    expect(job.result.creditsUsed).toBe(17);
    expect(job.creditsUsed).toBe(17);
    expect(await credits(key)).toBe(before - 17);
  });

  it('pages its results through GET /v1/web/scrape/batch/{id}: limit at a time, next to the following part', async () => {
    const key = await server.createKey('Pro');
    const job = await batch(key, { urls: TWENTY });
    const seen: string[] = [];
    let next: string | undefined = `/v1/web/scrape/batch/${job.jobId}?limit=6`;
    let parts = 0;
    while (next) {
      const reply = await server.request('GET', next.replace(server.baseUrl, ''), { apiKey: key });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status: 'completed', creditsUsed: 17, stats: { total: 20, failed: 3 } });
      seen.push(...reply.body.results.map((item: { url: string }) => item.url));
      next = reply.body.next;
      parts++;
    }
    expect(parts).toBe(4);
    expect(seen).toEqual(TWENTY);
    // Another key does not see the batch.
    const stranger = await server.createKey('Pro');
    expect((await server.request('GET', `/v1/web/scrape/batch/${job.jobId}`, { apiKey: stranger })).status).toBe(404);
  });

  it('collapses two spellings of one URL into one page and one credit', async () => {
    const key = await server.createKey('Free');
    const before = await credits(key);
    const job = await batch(key, { urls: [pageUrl(1), 'http://BATCH.test/page/1#top', pageUrl(2), pageUrl(1)] });
    expect(job.result.results.map((item) => item.url)).toEqual([pageUrl(1), pageUrl(2)]);
    expect(await credits(key)).toBe(before - 2);
  });

  it('reports a page that does not answer in time as UPSTREAM_TIMEOUT, charged nothing', async () => {
    // A server of its own with a short outbound timeout: the others keep the default, so a busy machine slows them, never fails them.
    const impatient = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `batch.test=${site.origin}`, GLEANER_HTTP_TIMEOUT_MS: '1000' } });
    try {
      const key = await impatient.createKey('Free');
      const me = async () => (await impatient.request('GET', '/v1/me', { apiKey: key })).body as { id: string; credits: number };
      const before = (await me()).credits;
      const start = await impatient.request('POST', '/v1/web/scrape/batch', { apiKey: key, body: { urls: ['http://batch.test/hang'] } });
      expect(start.status).toBe(202);
      const job = await impatient.app.services.jobs.waitFor(start.body.jobId, (await me()).id, 300_000);
      const result = job.result as { results: Array<{ error?: { code: string } }>; stats: unknown };
      expect(result.results[0].error?.code).toBe('UPSTREAM_TIMEOUT');
      expect(result.stats).toMatchObject({ total: 1, succeeded: 0, failed: 1 });
      expect((await me()).credits).toBe(before);
    } finally {
      await impatient.close();
    }
  });

  it('scrapes as many pages as a short balance pays for; the rest fail with CREDITS_EXHAUSTED, charged nothing', async () => {
    const key = await server.createKey('Pro', { credits: 5 });
    const job = await batch(key, { urls: Array.from({ length: 8 }, (_, i) => pageUrl(i + 30)) });
    expect(job.result.stoppedOn).toBe('credits');
    expect(job.result.results.filter((item) => item.page)).toHaveLength(5);
    expect(job.result.results.slice(5).map((item) => item.error?.code)).toEqual(['CREDITS_EXHAUSTED', 'CREDITS_EXHAUSTED', 'CREDITS_EXHAUSTED']);
    expect(await credits(key)).toBe(0);
  });

  it('an empty balance is a 402 before the job starts, charged nothing', async () => {
    const key = await server.createKey('Pro', { credits: 1 });
    await batch(key, { urls: [pageUrl(45)] });
    expect(await credits(key)).toBe(0);
    const reply = await server.request('POST', '/v1/web/scrape/batch', { apiKey: key, body: { urls: [pageUrl(46), pageUrl(47)] } });
    expect(reply.status).toBe(402);
    expect(reply.body.error.code).toBe('CREDITS_EXHAUSTED');
    expect(await credits(key)).toBe(0);
  });

  it('a cancelled batch keeps and charges the pages read before the cancel, and leaves out those in flight', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const start = await server.request('POST', '/v1/web/scrape/batch', { apiKey: key, body: { urls: [pageUrl(70), 'http://batch.test/held/1', 'http://batch.test/held/2'] } });
    expect(start.status).toBe(202);
    const jobId = start.body.jobId as string;
    // Both held pages are being fetched, and the plain page is read.
    while (held.length < 2) await new Promise<void>((resolve) => heldWaiters.push(resolve));
    const me = await accountOf(key);
    while (((await server.app.services.jobs.get(jobId, me)).progress?.done ?? 0) < 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const cancelled = await server.request('DELETE', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.result.results.map((item: { url: string }) => item.url)).toEqual([pageUrl(70)]);
    expect(cancelled.body.creditsUsed).toBe(1);
    expect(await credits(key)).toBe(before - 1);
  });

  it('POSTs a signed webhook when the batch ends', async () => {
    const key = await server.createKey('Pro');
    const arrived = new Promise<Delivery>((resolve) => waiting.push(resolve));
    const job = await batch(key, { urls: [pageUrl(40), 'http://batch.test/missing'], webhook: 'http://hooks.test/done' });
    const delivery = await arrived;
    const body = JSON.parse(delivery.raw);
    expect(body).toMatchObject({ jobId: job.jobId, status: 'completed', result: { stats: { total: 2, succeeded: 1, failed: 1 } } });
    expect(delivery.headers['x-gleaner-event']).toBe('job.completed');
    const timestamp = String(delivery.headers['x-gleaner-timestamp']);
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${delivery.raw}`).digest('hex')}`;
    expect(delivery.headers['x-gleaner-signature']).toBe(expected);
  });
});

describe('web_scrape_batch over MCP', () => {
  let client: Client;
  let key: string;
  beforeAll(async () => {
    key = await server.createKey('Pro');
    client = await connectMcp(server.baseUrl, key);
  });
  afterAll(() => client.close());

  it('waits for the batch and pages through its results with nextCursor, charged once', async () => {
    const before = await credits(key);
    const texts: string[] = [];
    const structured: string[] = [];
    let result = await client.callTool({ name: 'web_scrape_batch', arguments: { urls: TWENTY, maxChars: 1_000 } });
    for (let calls = 0; ; calls++) {
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const blocks = result.content as Array<{ type: string; text: string }>;
      texts.push(blocks[0].text);
      // structuredContent holds the same part: the job with this page's results.
      structured.push(...(result.structuredContent as any).result.results.map((item: { url: string }) => item.url));
      const cursor = (result.structuredContent as { nextCursor?: string }).nextCursor;
      if (!cursor) break;
      expect(blocks[1].text).toContain(`call web_scrape_batch with cursor="${cursor}"`);
      expect(calls).toBeLessThan(100);
      result = await client.callTool({ name: 'web_scrape_batch', arguments: { cursor } });
    }
    expect(texts.length).toBeGreaterThan(2);
    // Each result on one page: together, the 20 URLs in order, none twice.
    expect(structured).toEqual(TWENTY);
    const all = texts.join('\n');
    expect(all).toContain('17 pages, 3 failed, 17 credits used');
    for (const n of [1, 8, 9, 13, 14, 17]) expect(all).toContain(`This is page number ${n} of the batch`);
    expect(all).toContain('http://batch.test/missing\nFailed: CONTENT_NOT_FOUND');
    expect(all).toContain('http://127.0.0.1:9/private\nFailed: URL_NOT_ALLOWED');
    expect(all).toContain('http://batch.test/image.png\nFailed: UNSUPPORTED_CONTENT');
    expect(await credits(key)).toBe(before - 17);
  });

  it('job_status shows a batch started over REST in the same pages', async () => {
    const job = await batch(key, { urls: TWENTY.slice(0, 10) });
    const first = await client.callTool({ name: 'job_status', arguments: { jobId: job.jobId, maxChars: 1_000 } });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    const text = (first.content as Array<{ text: string }>)[0].text;
    expect(text).toContain(`Job ${job.jobId} (web_scrape_batch) completed`);
    expect(text).toContain('9 pages, 1 failed, 9 credits used');
    const cursor = (first.structuredContent as { nextCursor?: string }).nextCursor;
    expect(cursor).toBeDefined();
    const second = await client.callTool({ name: 'job_status', arguments: { cursor } });
    const both = `${text}${(second.content as Array<{ text: string }>)[0].text}`;
    for (const n of [1, 8, 9]) expect(both).toContain(`This is page number ${n} of the batch`);
    expect(both).toContain('http://batch.test/missing\nFailed: CONTENT_NOT_FOUND');
  });

  it('refuses too many URLs for the plan as an isError result, charged nothing', async () => {
    const free = await server.createKey('Free');
    const freeClient = await connectMcp(server.baseUrl, free);
    try {
      const before = await credits(free);
      const result = await freeClient.callTool({ name: 'web_scrape_batch', arguments: { urls: Array.from({ length: 11 }, (_, i) => pageUrl(i + 1)) } });
      expect(result.isError).toBe(true);
      expect(errorEnvelope(result).error.code).toBe('INVALID_REQUEST');
      expect(errorEnvelope(result).error.message).toMatch(/Free plan scrapes at most 10 distinct URLs/);
      expect(await credits(free)).toBe(before);
    } finally {
      await freeClient.close();
    }
  });
});

describe('changeTracking', () => {
  const url = 'http://batch.test/changing';
  const scrapeTracked = async (key: string, extra = '') => {
    const reply = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(url)}&changeTracking=true${extra}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as { content: string; changeTracking: { changeStatus: string; previousScrapeAt: string | null; diff?: string } };
  };

  it('says new the first time, same when the page did not change, changed with a diff when it did; another key sees none of it', async () => {
    const key = await server.createKey('Pro');
    const first = await scrapeTracked(key);
    expect(first.changeTracking).toEqual({ changeStatus: 'new', previousScrapeAt: null });

    const second = await scrapeTracked(key);
    expect(second.changeTracking.changeStatus).toBe('same');
    expect(second.changeTracking.diff).toBeUndefined();
    expect(Date.parse(second.changeTracking.previousScrapeAt!)).not.toBeNaN();

    changing = [changing[0], changing[1], 'A third paragraph about the snow that fell overnight.'];
    const third = await scrapeTracked(key);
    expect(third.changeTracking.changeStatus).toBe('changed');
    expect(third.changeTracking.previousScrapeAt! >= second.changeTracking.previousScrapeAt!).toBe(true);
    const diff = third.changeTracking.diff!;
    expect(diff).toContain('--- previous');
    expect(diff).toContain('+++ current');
    expect(diff).toMatch(/^-A third paragraph about the weather today\.$/m);
    expect(diff).toMatch(/^\+A third paragraph about the snow that fell overnight\.$/m);
    // The unchanged paragraph is context, not a change.
    expect(diff).not.toMatch(/^[-+]A second paragraph/m);

    // Another key has no history of this page: new, and its scrape leaves the first key's alone.
    const other = await server.createKey('Pro');
    expect((await scrapeTracked(other)).changeTracking.changeStatus).toBe('new');
    expect((await scrapeTracked(key)).changeTracking.changeStatus).toBe('same');
  });

  it('keeps nothing for a scrape that does not ask, and answers without the field', async () => {
    const key = await server.createKey('Pro');
    const reply = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(url)}`, { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body.changeTracking).toBeUndefined();
    const kept = await server.app.services.store.get(changeKey(await accountOf(key), url, { format: 'markdown', onlyMainContent: true, noLinks: false }));
    expect(kept).toBeUndefined();
    expect((await scrapeTracked(key)).changeTracking.changeStatus).toBe('new');
  });

  it('keeps a history per reading: the same page as text is new after it was tracked as markdown', async () => {
    const key = await server.createKey('Pro');
    expect((await scrapeTracked(key)).changeTracking.changeStatus).toBe('new');
    expect((await scrapeTracked(key, '&format=text')).changeTracking.changeStatus).toBe('new');
    expect((await scrapeTracked(key, '&format=text')).changeTracking.changeStatus).toBe('same');
  });

  it('applies to each page of a batch', async () => {
    const key = await server.createKey('Pro');
    const first = await batch(key, { urls: [url, pageUrl(50)], changeTracking: true });
    expect(first.result.results.map((item) => item.page.changeTracking.changeStatus)).toEqual(['new', 'new']);
    changing = [changing[0], 'The second paragraph was rewritten.', changing[2]];
    const second = await batch(key, { urls: [url, pageUrl(50)], changeTracking: true });
    expect(second.result.results.map((item) => item.page.changeTracking.changeStatus)).toEqual(['changed', 'same']);
    expect(second.result.results[0].page.changeTracking.diff).toMatch(/^\+The second paragraph was rewritten\.$/m);
  });

  it('shows the change and its diff in the MCP text of web_scrape', async () => {
    const key = await server.createKey('Pro');
    const client = await connectMcp(server.baseUrl, key);
    try {
      await client.callTool({ name: 'web_scrape', arguments: { url, changeTracking: true } });
      changing = [changing[0], changing[1], 'A third paragraph, edited for the MCP test.'];
      const result = await client.callTool({ name: 'web_scrape', arguments: { url, changeTracking: true } });
      expect(result.isError).toBeFalsy();
      const text = (result.content as Array<{ text: string }>)[0].text;
      expect(text).toMatch(/Change since your scrape of \S+: changed/);
      expect(text).toMatch(/^\+A third paragraph, edited for the MCP test\.$/m);
      expect((result.structuredContent as any).changeTracking.changeStatus).toBe('changed');
    } finally {
      await client.close();
    }
  });
});

describe('bad input is a 400 charged nothing', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no URLs', { urls: [] }, /urls/],
    ['more than 100 URLs', { urls: Array.from({ length: 101 }, (_, i) => pageUrl(i)) }, /urls/],
    ['a URL that is not http(s)', { urls: [pageUrl(1), 'ftp://batch.test/file'] }, /http or https/],
    ['a URL that is not a URL', { urls: ['not a url'] }, /http or https/],
    ['a bad webhook', { urls: [pageUrl(1)], webhook: 'mailto:someone@example.com' }, /webhook/],
    ['a webhook to a private address', { urls: [pageUrl(1)], webhook: 'http://127.0.0.1:9/hook' }, /./],
    ['changeTracking not a boolean', { urls: [pageUrl(1)], changeTracking: 'yes' }, /changeTracking/],
    ['a bad format', { urls: [pageUrl(1)], format: 'pdf' }, /format/],
    ['more URLs than the Pro plan allows', { urls: Array.from({ length: 51 }, (_, i) => pageUrl(i)) }, /Pro plan scrapes at most 50 distinct URLs/],
  ];
  for (const [what, body, message] of cases) {
    it(what, async () => {
      const key = await server.createKey('Pro');
      const before = await credits(key);
      const reply = await server.request('POST', '/v1/web/scrape/batch', { apiKey: key, body });
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(['INVALID_REQUEST', 'URL_NOT_ALLOWED']).toContain(reply.body.error.code);
      expect(reply.body.error.message).toMatch(message);
      expect(await credits(key)).toBe(before);
    });
  }

  it('changeTracking on web_scrape that is not a boolean', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const reply = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(pageUrl(1))}&changeTracking=maybe`, { apiKey: key });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/changeTracking/);
    expect(await credits(key)).toBe(before);
  });

  it('a results view with a limit out of bounds', async () => {
    const key = await server.createKey('Pro');
    const job = await batch(key, { urls: [pageUrl(60)] });
    const before = await credits(key);
    for (const query of ['limit=0', 'limit=101', 'skip=-1']) {
      const reply = await server.request('GET', `/v1/web/scrape/batch/${job.jobId}?${query}`, { apiKey: key });
      expect(reply.status, query).toBe(400);
    }
    expect(await credits(key)).toBe(before);
  });
});
