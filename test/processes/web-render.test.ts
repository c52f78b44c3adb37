/**
 * Rendering through a real browser (web/render/): app-shell pages give their article with
 * render=auto, every request of a rendered page goes through the outbound client (so the SSRF guard
 * refuses loopback from a "public" page), WebSockets are refused, crawl and map read rendered links,
 * and without a browser auto falls back with a warning while always is a clear 503.
 *
 * The app site is served from loopback under the "public" name app.test (GLEANER_UPSTREAM_OVERRIDES,
 * operator configuration); the guard stays on for every other host, so the loopback "secret" server
 * must never see a request. Needs a Chromium (GLEANER_BROWSER_PATH or chromium on the PATH; CI installs
 * Debian's): without one, the browser tests are skipped and say why; the no-browser tests always run.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { startAppShellSite, type AppShellSite } from '../support/app-shell-site.js';
import { locateBrowser } from '../../src/web/render/locate.js';
import { looksLikeAppShell, looksLikeChallenge, visibleTextLength } from '../../src/web/render/shell.js';
import { checkBrowser } from '../../src/cli/doctor-checks.js';
import { FIXTURES_DIR } from '../support/paths.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

const browser = locateBrowser({ browserPath: process.env.GLEANER_BROWSER_PATH, wsUrl: process.env.GLEANER_BROWSER_WS_URL });
const noBrowser = browser.kind === 'none' ? browser.reason : undefined;
if (noBrowser) console.warn(`web-render: browser tests skipped: ${noBrowser}`);

const ARTICLE = 'The last keeper, Agnes Moray, logged every ship';

let site: AppShellSite;
let secret: http.Server;
let secretOrigin: string;
const secretHits: string[] = [];

beforeAll(async () => {
  site = await startAppShellSite({ pages: 12 });
  secret = http.createServer((req, res) => {
    secretHits.push(req.url ?? '');
    res.setHeader('access-control-allow-origin', '*');
    res.end('TOP-SECRET-VALUE');
  });
  secret.on('upgrade', (req, socket) => {
    secretHits.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => secret.listen(0, '127.0.0.1', resolve));
  secretOrigin = `http://127.0.0.1:${(secret.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await site?.close();
  secret?.closeAllConnections();
  await new Promise<void>((resolve) => secret?.close(() => resolve()));
});

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe.skipIf(Boolean(noBrowser))('rendering with a browser', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer({
      env: { GLEANER_UPSTREAM_OVERRIDES: `app.test=${site.origin}`, GLEANER_RENDER_TIMEOUT_MS: '30000', GLEANER_HTTP_TIMEOUT_MS: '10000' },
    });
    key = await server.createKey('Pro');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('the hand-written app-shell fixture gives its article with render=auto (the default), charged 1 + 1 credit', async () => {
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rendered).toBe(true);
    expect(res.body.content).toContain(ARTICLE);
    expect(res.body.title).toBe('The Keepers of the Northern Light');
    expect(res.body.description).toBe('How three generations kept a lighthouse burning on a rock in the North Sea.');
    expect(res.body.warnings).toBeUndefined();
    expect(res.headers.get('x-credits-used')).toBe('2');
  }, 60_000);

  it('render=never reads the HTML the server sent: no article, 1 credit', async () => {
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture', render: 'never' })}`, { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body.rendered).toBe(false);
    expect(res.body.content).not.toContain(ARTICLE);
    expect(res.headers.get('x-credits-used')).toBe('1');
  });

  it('auto leaves a page that is not an app shell to the plain fetch', async () => {
    const before = site.requests.length;
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/api/lighthouse.json' })}`, { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body.rendered).toBe(false);
    expect(site.requests.slice(before)).toEqual(['/api/lighthouse.json']);
  });

  it('a JavaScript challenge (503, "Just a moment...") is passed in the browser: its cookie and reload go through the client', async () => {
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/challenge' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rendered).toBe(true);
    expect(res.body.title).toBe('Behind the challenge');
    expect(res.body.content).toContain('served only to a browser that ran the challenge');
  }, 60_000);

  it('metadata reads the rendered DOM', async () => {
    const res = await server.request('GET', `/v1/metadata?${q({ url: 'http://app.test/fixture' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rendered).toBe(true);
    expect(res.body.title).toBe('The Keepers of the Northern Light');
    expect(res.body.description).toContain('three generations');
  }, 60_000);

  it("a rendered public page cannot reach loopback: fetch, XHR, redirect, beacon, iframe, worker and WebSockets are all refused; the secret server gets no request", async () => {
    const before = site.upgrades.length;
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: `http://app.test/probe?target=${encodeURIComponent(secretOrigin)}`, render: 'always', onlyMainContent: 'false' })}`, {
      apiKey: key,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rendered).toBe(true);
    expect(res.body.content).toContain('The probe page ran its script');
    expect(res.body.content).toContain('fetch was refused');
    expect(res.body.content).toContain('redirect was refused');
    expect(res.body.content).toContain('xhr was refused');
    expect(res.body.content).not.toContain('TOP-SECRET-VALUE');
    expect(res.body.content).not.toContain('websocket opened');
    expect(secretHits).toEqual([]);
    // WebSockets are refused even to the page's own (allowed) host: no upgrade reached the site either.
    expect(site.upgrades.length).toBe(before);
    expect(res.body.warnings.join(' ')).toMatch(/127\.0\.0\.1/);
    expect(res.body.warnings.join(' ')).toMatch(/WebSocket/);
  }, 60_000);

  it('waitFor takes a CSS selector: text a timer adds after load is there', async () => {
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/late', render: 'always', waitFor: '#late' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toContain('This paragraph arrived late');
    const bad = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/late', render: 'always', waitFor: '##' })}`, { apiKey: key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
  }, 60_000);

  it('waitFor takes milliseconds: text a timer adds 1.2 s after load is there with waitFor=2500, not without', async () => {
    const without = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/timed', render: 'always' })}`, { apiKey: key });
    expect(without.status, JSON.stringify(without.body)).toBe(200);
    expect(without.body.content).not.toContain('This paragraph came after');
    const waited = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/timed', render: 'always', waitFor: '2500' })}`, { apiKey: key });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    expect(waited.body.content).toContain('This paragraph came after one and a fifth seconds');
  }, 60_000);

  it('the browser speaks as the plain fetch does: the user agent, and lang as navigator.language and the Accept-Language of its own requests, call by call', async () => {
    const identity = async (lang?: string) => {
      const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/identity', render: 'always', format: 'text', ...(lang ? { lang } : {}) })}`, { apiKey: key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Object.fromEntries((res.body.content as string).split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    };
    const userAgent = server.app.services.http.userAgent;
    expect(userAgent).toMatch(/Windows NT 10\.0/);
    // Twice in German (the second call gets the context prepared behind the first), then French, then none:
    // the prepared context is never handed to a call of another language.
    for (const [lang, language, header] of [
      ['de-DE', 'de-DE', 'de-DE,de;q=0.9,*;q=0.5'],
      ['de-DE', 'de-DE', 'de-DE,de;q=0.9,*;q=0.5'],
      ['fr', 'fr', 'fr,*;q=0.5'],
      [undefined, 'en-US', 'en-US,en;q=0.9'],
    ] as const) {
      const seen = await identity(lang);
      expect(seen['navigator.language'], lang).toBe(language);
      expect(seen['fetch.accept-language'], lang).toBe(header);
      expect(seen['navigator.userAgent'], lang).toBe(userAgent);
      expect(seen['fetch.user-agent'], lang).toBe(userAgent);
    }
  }, 90_000);

  it('no cookie or localStorage crosses calls or accounts: every call renders in a fresh context', async () => {
    const other = await server.createKey('Pro');
    const remembered: string[] = [];
    for (const apiKey of [key, key, other, key]) {
      const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/memory', render: 'always', format: 'text' })}`, { apiKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      remembered.push(String(res.body.content).match(/remembered: ([^.]*)\./)?.[1] ?? 'nothing read');
    }
    expect(remembered).toEqual(Array(4).fill('cookie=(none) storage=(none)'));
  }, 90_000);

  it('waitFor reaches every page of a crawl: a link a timer adds is followed, its text read', async () => {
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
    const crawl = async (extra: Record<string, unknown>) => {
      const started = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://app.test/timed-site', mode: 'recursive', maxPages: 3, render: 'always', ...extra } });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      await server.app.services.jobs.waitFor(started.body.jobId, me.id, 120_000);
      const job = (await server.request('GET', `/v1/jobs/${started.body.jobId}`, { apiKey: key })).body;
      expect(job.status, JSON.stringify(job.error)).toBe('completed');
      return job.result.pages as Array<{ url: string; content: string }>;
    };
    const waited = await crawl({ waitFor: 2500 });
    expect(waited.map((p) => p.url).sort()).toEqual(['http://app.test/timed-linked', 'http://app.test/timed-site']);
    for (const page of waited) expect(page.content).toContain('This paragraph came after one and a fifth seconds');
    const hurried = await crawl({});
    expect(hurried.map((p) => p.url)).toEqual(['http://app.test/timed-site']);
  }, 200_000);

  it('waitFor reaches the pages a map reads: a link a timer adds is listed', async () => {
    const waited = await server.request('GET', `/v1/web/map?${q({ url: 'http://app.test/timed-site', render: 'always', waitFor: '2500' })}`, { apiKey: key });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    expect(waited.body.urls).toContain('http://app.test/timed-linked');
    const hurried = await server.request('GET', `/v1/web/map?${q({ url: 'http://app.test/timed-site', render: 'always' })}`, { apiKey: key });
    expect(hurried.status, JSON.stringify(hurried.body)).toBe(200);
    expect(hurried.body.urls).not.toContain('http://app.test/timed-linked');
  }, 120_000);

  it('crawl renders each app-shell page and follows links that exist only in the rendered DOM', async () => {
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string; credits: number };
    const started = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://app.test/', mode: 'recursive', maxPages: 12 } });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await server.app.services.jobs.waitFor(started.body.jobId, me.id, 180_000);
    const job = (await server.request('GET', `/v1/jobs/${started.body.jobId}`, { apiKey: key })).body;
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    const pages = job.result.pages as Array<{ url: string; content: string; rendered: boolean; title: string }>;
    expect(pages).toHaveLength(12);
    expect(pages.every((p) => p.rendered)).toBe(true);
    expect(new Set(pages.map((p) => p.title))).toEqual(new Set(Array.from({ length: 12 }, (_, i) => `Article ${i + 1} of the app`)));
    expect(pages.find((p) => p.url === 'http://app.test/article/7')?.content).toContain('Article 7 was built in the browser');
    // 12 pages, each 1 credit plus 1 for its render.
    expect(job.creditsUsed).toBe(24);
  }, 200_000);

  it('map reads the links of rendered pages', async () => {
    const res = await server.request('GET', `/v1/web/map?${q({ url: 'http://app.test/', limit: '12' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.urls).toContain('http://app.test/article/2');
    expect(res.body.urls).toContain('http://app.test/article/3');
    expect(res.body.renderedPages).toBeGreaterThan(0);
    expect(Number(res.headers.get('x-credits-used'))).toBe(1 + res.body.renderedPages);
  }, 120_000);

  it('in MCP stdio mode a rendered scrape leaves stdout to the protocol: every line is JSON-RPC', async () => {
    const child = spawn(process.execPath, [GLEANER_MAIN, 'mcp'], {
      env: { ...process.env, GLEANER_DATA_DIR: server.dataDir, GLEANER_API_KEY: key, GLEANER_UPSTREAM_OVERRIDES: `app.test=${site.origin}`, GLEANER_LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.resume();
    const lines: string[] = [];
    const waiting = new Map<number, (message: any) => void>();
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        try {
          const message = JSON.parse(line);
          waiting.get(message.id)?.(message);
        } catch {
          // not JSON: the assertion below reports it
        }
      }
    });
    const call = (id: number, method: string, params: unknown) =>
      new Promise<any>((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdout-check', version: '1' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const reply = await call(2, 'tools/call', { name: 'web_scrape', arguments: { url: 'http://app.test/fixture', render: 'always' } });
    expect(reply.result.isError, JSON.stringify(reply.result)).toBeFalsy();
    // The page's words are in the text block (structuredContent holds its facts: docs/mcp-paging.md).
    expect(reply.result.content.map((block: { text?: string }) => block.text ?? '').join('')).toContain(ARTICLE);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.stdin.end();
    await exited;
    expect(lines.filter((line) => line.trim() !== '').every((line) => JSON.parse(line).jsonrpc === '2.0')).toBe(true);
  }, 180_000);

  it('gleaner doctor checks that the browser starts and runs a script', async () => {
    expect(await checkBrowser(server.app)).toMatchObject({ name: 'browser', status: 'ok', detail: expect.stringMatching(/renders pages/) });
  }, 60_000);

  it('a browser that crashed is started again for the next page', async () => {
    const [pid] = browserProcesses();
    expect(pid, 'the browser runs as a child of this process').toBeGreaterThan(0);
    const gone = new Promise<void>((resolve) => {
      const poll = () => (isAlive(pid!) ? setTimeout(poll, 50) : resolve());
      poll();
    });
    process.kill(pid!, 'SIGKILL');
    await gone;
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture', render: 'always' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toContain(ARTICLE);
    expect(browserProcesses()).not.toContain(pid);
  }, 90_000);
});

describe.skipIf(browser.kind !== 'local')('a remote browser over CDP (GLEANER_BROWSER_WS_URL)', () => {
  let server: TestServer;
  let key: string;
  let remote: ChildProcess;
  let profile: string;

  beforeAll(async () => {
    // A "fleet" of one: a Chromium of its own, reached only through its DevTools WebSocket.
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-remote-browser-'));
    remote = spawn((browser as { executablePath: string }).executablePath, ['--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      // Its own process group: Chromium's helpers (zygote, renderers) go with it at the end.
      detached: true,
    });
    const wsUrl = await new Promise<string>((resolve, reject) => {
      let text = '';
      remote.stderr!.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = text.match(/DevTools listening on (ws:\/\/\S+)/);
        if (match) resolve(match[1]);
      });
      remote.on('exit', (code) => reject(new Error(`the remote browser exited (${code}): ${text.slice(-500)}`)));
    });
    server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `app.test=${site.origin}`, GLEANER_BROWSER_WS_URL: wsUrl, GLEANER_RENDER_TIMEOUT_MS: '30000' } });
    key = await server.createKey('Pro');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    const exited = new Promise((resolve) => remote?.once('exit', resolve));
    if (remote?.pid) process.kill(-remote.pid, 'SIGKILL');
    await exited;
    // A helper the kill has not reached yet may still write a file into the profile: tried again for a while.
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('renders through the remote browser, whose page requests still go through the guard', async () => {
    const article = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture' })}`, { apiKey: key });
    expect(article.status, JSON.stringify(article.body)).toBe(200);
    expect(article.body.rendered).toBe(true);
    expect(article.body.content).toContain(ARTICLE);
    const probe = await server.request('GET', `/v1/web/scrape?${q({ url: `http://app.test/probe?target=${encodeURIComponent(secretOrigin)}`, render: 'always', onlyMainContent: 'false' })}`, {
      apiKey: key,
    });
    expect(probe.status, JSON.stringify(probe.body)).toBe(200);
    expect(probe.body.content).toContain('fetch was refused');
    expect(probe.body.content).not.toContain('TOP-SECRET-VALUE');
    expect(secretHits).toEqual([]);
  }, 90_000);
});

describe('a remote browser that cannot be reached', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `app.test=${site.origin}`, GLEANER_BROWSER_WS_URL: 'ws://127.0.0.1:1/devtools/browser?token=do-not-show-this-token' } });
    key = await server.createKey('Pro', { credits: 100 });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('auto reads the page plainly with a warning, always is a 503; neither shows the URL or its token', async () => {
    const auto = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture' })}`, { apiKey: key });
    expect(auto.status).toBe(200);
    expect(auto.body.rendered).toBe(false);
    expect(auto.body.warnings[0]).toContain('GLEANER_BROWSER_WS_URL');
    const always = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture', render: 'always' })}`, { apiKey: key });
    expect(always.status).toBe(503);
    expect(always.body.error.message).toContain('GLEANER_BROWSER_WS_URL');
    expect(JSON.stringify([auto.body, always.body])).not.toContain('do-not-show-this-token');
    // The plain read is charged 1; the refused render nothing.
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(99);
  }, 60_000);
});

describe('without a browser (GLEANER_BROWSER_PATH points at a missing file)', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `app.test=${site.origin}`, GLEANER_BROWSER_PATH: '/nonexistent/chromium' } });
    key = await server.createKey('Pro', { credits: 100 });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('auto gives the plain page with a warning naming the setting, at the plain price', async () => {
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/fixture' })}`, { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body.rendered).toBe(false);
    expect(res.body.content).not.toContain(ARTICLE);
    expect(res.body.warnings).toHaveLength(1);
    expect(res.body.warnings[0]).toMatch(/app shell/);
    expect(res.body.warnings[0]).toContain('GLEANER_BROWSER_PATH is /nonexistent/chromium');
    expect(res.headers.get('x-credits-used')).toBe('1');
  });

  it('always is a 503 NOT_CONFIGURED naming GLEANER_BROWSER_PATH and GLEANER_BROWSER_WS_URL, before anything is fetched or charged', async () => {
    const before = site.requests.length;
    for (const path of ['/v1/web/scrape', '/v1/web/map', '/v1/metadata']) {
      const res = await server.request('GET', `${path}?${q({ url: 'http://app.test/fixture', render: 'always' })}`, { apiKey: key });
      expect(res.status, path).toBe(503);
      expect(res.body.error.code).toBe('NOT_CONFIGURED');
      expect(res.body.error.message).toContain('GLEANER_BROWSER_PATH');
    }
    const crawl = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://app.test/', render: 'always' } });
    expect(crawl.status).toBe(503);
    expect(crawl.body.error.code).toBe('NOT_CONFIGURED');
    expect(site.requests.length).toBe(before);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(99);
  });

  it('a JavaScript challenge is 503 UPSTREAM_BLOCKED saying a browser was not available, charging nothing', async () => {
    const before = (await server.request('GET', '/v1/me', { apiKey: key })).body.credits;
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://app.test/challenge' })}`, { apiKey: key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(res.body.error.message).toContain('GLEANER_BROWSER_PATH');
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(before);
  });

  it('gleaner doctor says rendering is skipped, naming the setting', async () => {
    expect(await checkBrowser(server.app)).toMatchObject({ name: 'browser', status: 'skipped', detail: expect.stringContaining('GLEANER_BROWSER_PATH') });
  });

  it('a message without a browser at all names both settings', async () => {
    const { locateBrowser: locate } = await import('../../src/web/render/locate.js');
    const none = locate({}, '/nonexistent-bin');
    expect(none.kind).toBe('none');
    expect(none.kind === 'none' && none.reason).toMatch(/GLEANER_BROWSER_PATH.*GLEANER_BROWSER_WS_URL/);
  });
});

/** The browsers this process launched: its children whose command line is Chromium's. */
function browserProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && /chrom/i.test(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('which pages auto renders (shell.ts)', () => {
  it('the app-shell fixture is a shell; none of the real captured pages is, nor a challenge', () => {
    const fixtures = FIXTURES_DIR;
    expect(looksLikeAppShell(fs.readFileSync(path.join(fixtures, 'render', 'app-shell.html'), 'utf8'))).toBe(true);
    const real = fs.readdirSync(path.join(fixtures, 'web')).filter((name) => fs.existsSync(path.join(fixtures, 'web', name, 'source.html')));
    expect(real.length).toBeGreaterThan(50);
    for (const name of real) {
      const html = fs.readFileSync(path.join(fixtures, 'web', name, 'source.html'), 'utf8');
      expect(looksLikeAppShell(html), name).toBe(false);
      expect(looksLikeChallenge(200, {}, html), name).toBe(false);
    }
  });

  it('counts visible text only: scripts, styles, the head and comments are not text', () => {
    expect(visibleTextLength('<html><head><title>T</title><script>var a = "long text";</script></head><body><!-- note --><p>Hi  there</p><style>p{}</style></body></html>')).toBe('Hi there'.length);
    expect(looksLikeAppShell('<div id="root"></div><script src="/app.js"></script>')).toBe(true);
    expect(looksLikeAppShell('<div id="root"></div>')).toBe(false); // no script: nothing would build it
    expect(looksLikeChallenge(503, {}, '<title>Just a moment...</title><script>cf_chl_opt={}</script>')).toBe(true);
    expect(looksLikeChallenge(403, { 'cf-mitigated': 'challenge' }, '')).toBe(true);
    expect(looksLikeChallenge(404, {}, '<title>Just a moment...</title>')).toBe(false);
  });
});

function isAlive(pid: number): boolean {
  try {
    if (/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false; // a zombie is dead
  } catch {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
