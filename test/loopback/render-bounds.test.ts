/**
 * Rendering is bounded (web/render/): hostile pages served from loopback under the "public" name
 * hostile.test (GLEANER_UPSTREAM_OVERRIDES) try to hold the browser, and each is stopped with a clear
 * error that charges nothing:
 *   - a page running `setTimeout(() => { for (;;) {} }, 300)` frees its render slot at the page deadline;
 *     one key's crawl of 8 such pages holds at most its share of the slots while another key renders,
 *     and the crawl's rendering as a whole ends at its own deadline;
 *   - a 100 MB DOM is refused before it is serialised;
 *   - a page allocating memory is stopped at the renderer memory limit;
 *   - a page using WebRTC reaches no STUN or TURN server (one on loopback UDP and TCP sees nothing);
 *   - a page that navigates to a refused address is a failed render, not Chromium's error page.
 * Deadlines are set small through the configuration; nothing asserts how long anything took.
 * Needs a Chromium (Debian's /usr/bin/chromium in CI); without one the file is skipped and says why.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { locateBrowser } from '../../src/web/render/locate.js';
import { DEAD_PROXY, launchArgs, type Renderer } from '../../src/web/render/browser-pool.js';

const browser = locateBrowser({ browserPath: process.env.GLEANER_BROWSER_PATH });
const noBrowser = browser.kind === 'local' ? undefined : browser.kind === 'none' ? browser.reason : 'a local browser is needed';
if (noBrowser) console.warn(`render-bounds: skipped: ${noBrowser}`);

const BUSY_PAGES = 8;
const PAGE_TIMEOUT_MS = 10_000;
const CRAWL_TIMEOUT_MS = 30_000;

const page = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const ARTICLE = '<article><h1>An ordinary page</h1><p>This page is rendered while other pages of another key spin in loops; it has nothing to hide and a few sentences to read.</p></article>';

/** The hostile site; `holds` counts requests to /hold still waiting. */
function startHostileSite(): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hostile.test');
    requests.push(url.pathname);
    const html = (body: string) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(body);
    };
    if (url.pathname === '/robots.txt') return res.end('User-agent: *\nAllow: /\n');
    if (url.pathname === '/ordinary') return html(page('Ordinary', ARTICLE));
    if (url.pathname === '/busy-site') {
      const links = Array.from({ length: BUSY_PAGES }, (_, i) => `<li><a href="/busy/${i + 1}">Busy page ${i + 1}</a></li>`).join('');
      return html(page('Busy site', `${ARTICLE}<ul>${links}</ul>`));
    }
    if (url.pathname.startsWith('/busy/')) {
      // The loop starts 300 ms in; a request held for 2 s keeps the page "loading" past that, so the
      // loop is running by the time the DOM is read, however busy the machine.
      return html(
        page(
          'Busy',
          `<p>This page never yields once its timer fires.</p><script>fetch('/hold').catch(() => {}); setTimeout(() => { for (;;) {} }, 300);</script>`,
        ),
      );
    }
    if (url.pathname === '/hold') {
      const timer = setTimeout(() => res.end('held'), 2_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname === '/huge') {
      // About 100 MB of DOM: a 48 MB text node and 100,000 paragraphs of 500 bytes, hidden (a DOM
      // this size laid out would cost the renderer more time and memory than the test needs).
      return html(
        page(
          'Huge',
          `<div id="root" style="display:none"></div><script>
            const root = document.getElementById('root');
            root.append('x'.repeat(48 * 1024 * 1024));
            const p = '<p>' + 'lorem ipsum '.repeat(40) + '</p>';
            for (let i = 0; i < 100; i++) { const part = document.createElement('div'); part.innerHTML = p.repeat(1000); root.append(part); }
          </script>`,
        ),
      );
    }
    if (url.pathname === '/hog') {
      // ArrayBuffers live outside V8's heap limit: only the renderer memory limit stops them.
      return html(
        page(
          'Hog',
          `<div id="root"></div><script>
            const kept = [];
            const grow = () => { if (kept.length < 64) { kept.push(new Uint8Array(32 * 1024 * 1024).fill(7)); setTimeout(grow, 100); } };
            grow();
          </script>`,
        ),
      );
    }
    if (url.pathname === '/webrtc') {
      return html(page('WebRTC', `<div id="out"></div><script>${webrtcProbe(url.searchParams.get('udp')!, url.searchParams.get('tcp')!)}</script>`));
    }
    if (url.pathname === '/escape') {
      return html(page('Escape', `<p>Leaving.</p><script>location.href = ${JSON.stringify(url.searchParams.get('to'))};</script>`));
    }
    res.statusCode = 404;
    res.end('not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

/** A script that tries a peer connection to STUN and TURN on loopback from the page, a script-made iframe and a worker, and writes what it saw. */
function webrtcProbe(udpPort: string, tcpPort: string): string {
  return `(async () => {
    const out = document.getElementById('out');
    const say = (line) => { const p = document.createElement('p'); p.textContent = line; out.append(p); };
    const servers = [
      { urls: 'stun:127.0.0.1:${udpPort}' },
      { urls: 'turn:127.0.0.1:${udpPort}?transport=udp', username: 'u', credential: 'p' },
      { urls: 'turn:127.0.0.1:${tcpPort}?transport=tcp', username: 'u', credential: 'p' },
    ];
    const attempt = async (label, scope) => {
      const Peer = scope.RTCPeerConnection || scope.webkitRTCPeerConnection;
      if (typeof Peer !== 'function') return say(label + ': no RTCPeerConnection');
      try {
        const pc = new Peer({ iceServers: servers });
        pc.createDataChannel('probe');
        const found = [];
        pc.onicecandidate = (event) => event.candidate && found.push(event.candidate.candidate);
        await pc.setLocalDescription(await pc.createOffer());
        await new Promise((resolve) => setTimeout(resolve, 2000));
        say(label + ': candidates ' + found.length);
      } catch (error) {
        say(label + ': failed ' + error);
      }
    };
    await attempt('window', window);
    const frame = document.createElement('iframe');
    document.body.append(frame);
    await attempt('iframe', frame.contentWindow);
    const worker = new Worker(URL.createObjectURL(new Blob(['postMessage(typeof RTCPeerConnection)'], { type: 'text/javascript' })));
    say('worker: ' + (await new Promise((resolve) => { worker.onmessage = (event) => resolve(event.data); worker.onerror = () => resolve('no worker'); })));
    const done = document.createElement('p');
    done.id = 'done';
    done.textContent = 'probe finished';
    out.append(done);
  })();`;
}

/** STUN/TURN on loopback: a UDP socket and a TCP listener that record whatever reaches them. */
async function startIceServers(): Promise<{ udpPort: number; tcpPort: number; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const udp = dgram.createSocket('udp4');
  udp.on('message', (message, from) => seen.push(`udp ${message.length} bytes from ${from.address}:${from.port}`));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  const tcp = net.createServer((socket) => {
    seen.push(`tcp connection from ${socket.remoteAddress}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return {
    udpPort: udp.address().port,
    tcpPort: (tcp.address() as AddressInfo).port,
    seen,
    close: async () => {
      udp.close();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe.skipIf(Boolean(noBrowser))('bounded rendering', () => {
  let site: Awaited<ReturnType<typeof startHostileSite>>;
  let secret: http.Server;
  let secretOrigin: string;
  const secretHits: string[] = [];
  let server: TestServer;
  let renderer: Renderer;

  beforeAll(async () => {
    site = await startHostileSite();
    secret = http.createServer((req, res) => {
      secretHits.push(req.url ?? '');
      res.end('TOP-SECRET-VALUE');
    });
    await new Promise<void>((resolve) => secret.listen(0, '127.0.0.1', resolve));
    secretOrigin = `http://127.0.0.1:${(secret.address() as AddressInfo).port}`;
    server = await startTestServer({
      env: {
        GLEANER_UPSTREAM_OVERRIDES: `hostile.test=${site.origin}`,
        GLEANER_RENDER_CONCURRENCY: '4',
        GLEANER_RENDER_CONCURRENCY_PER_ACCOUNT: '2',
        GLEANER_RENDER_TIMEOUT_MS: String(PAGE_TIMEOUT_MS),
        GLEANER_RENDER_CRAWL_TIMEOUT_MS: String(CRAWL_TIMEOUT_MS),
        GLEANER_RENDER_MEMORY_MB: '512',
        GLEANER_HTTP_TIMEOUT_MS: '10000',
      },
    });
    renderer = server.app.services.renderer!;
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await site?.close();
    secret?.closeAllConnections();
    await new Promise<void>((resolve) => secret?.close(() => resolve()));
  });

  const credits = async (apiKey: string) => (await server.request('GET', '/v1/me', { apiKey })).body.credits as number;
  const accountOf = async (apiKey: string) => (await server.request('GET', '/v1/me', { apiKey })).body.id as string;

  it('one key crawling 8 busy-loop pages holds only its share of the slots; another key renders meanwhile; every busy page is stopped at a deadline, free', async () => {
    const crawler = await server.createKey('Pro', { credits: 100 });
    const other = await server.createKey('Pro', { credits: 100 });
    const crawlerId = await accountOf(crawler);
    const started = await server.request('POST', '/v1/web/crawl', {
      apiKey: crawler,
      body: { url: 'http://hostile.test/busy-site', mode: 'recursive', maxPages: BUSY_PAGES + 1, render: 'always' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);

    // The crawl has its share of the slots busy with looping pages, and more of its pages wait.
    while (renderer.slots.holding(crawlerId) < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    // While the other key's page renders, its slot and the crawl's two are held at the same moment.
    const otherId = await accountOf(other);
    let together = false;
    const watch = setInterval(() => {
      if (renderer.slots.holding(otherId) === 1 && renderer.slots.holding(crawlerId) === 2) together = true;
    }, 20);
    const meanwhile = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/ordinary', render: 'always' })}`, { apiKey: other });
    clearInterval(watch);
    expect(meanwhile.status, JSON.stringify(meanwhile.body)).toBe(200);
    expect(meanwhile.body.rendered).toBe(true);
    expect(meanwhile.body.content).toContain('An ordinary page');
    expect(together, "the other key rendered while the crawl's busy pages held their share").toBe(true);

    await server.app.services.jobs.waitFor(started.body.jobId, crawlerId, 240_000);
    const job = (await server.request('GET', `/v1/jobs/${started.body.jobId}`, { apiKey: crawler })).body;
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    expect(job.result.pages.map((p: { url: string }) => p.url)).toEqual(['http://hostile.test/busy-site']);
    const failed = job.result.failed as Array<{ url: string; error: { code: string; message: string } }>;
    expect(failed.map((f) => f.url).sort()).toEqual(Array.from({ length: BUSY_PAGES }, (_, i) => `http://hostile.test/busy/${i + 1}`).sort());
    expect(failed.every((f) => f.error.code === 'UPSTREAM_TIMEOUT'), JSON.stringify(failed)).toBe(true);
    // 8 pages over 2 slots at 10 s each would take 40 s: the crawl's deadline for rendering as a whole
    // (30 s) cut the last of them, whenever the first began.
    expect(failed.some((f) => f.error.message.includes('GLEANER_RENDER_CRAWL_TIMEOUT_MS')), JSON.stringify(failed)).toBe(true);
    // The one page read: 1 + 1 credits; the stopped pages nothing.
    expect(job.creditsUsed).toBe(2);
    expect(await credits(crawler)).toBe(98);
    expect(renderer.slots.holding(crawlerId)).toBe(0);
  }, 300_000);

  it('a scrape of a busy-loop page answers 504 at the page deadline and frees its slot, charging nothing', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/busy/1', render: 'always' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(504);
    expect(res.body.error.code).toBe('UPSTREAM_TIMEOUT');
    expect(res.body.error.message).toContain('GLEANER_RENDER_TIMEOUT_MS');
    expect(renderer.slots.holding(await accountOf(key))).toBe(0);
    expect(await credits(key)).toBe(100);
    // The slot is usable: the next render succeeds.
    const next = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/ordinary', render: 'always' })}`, { apiKey: key });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.rendered).toBe(true);
  }, 120_000);

  it('a browser that stops answering (SIGSTOP) is killed once its page will not close, and the next page renders in a new one', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const warm = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/ordinary', render: 'always' })}`, { apiKey: key });
    expect(warm.status, JSON.stringify(warm.body)).toBe(200);
    const [stuck] = browserProcesses();
    expect(stuck, 'the browser runs as a child of this process').toBeGreaterThan(0);
    const id = await accountOf(key);
    const pending = server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/busy/2', render: 'always' })}`, { apiKey: key });
    let answered: { status: number; body: unknown } | undefined;
    void pending.then((res) => (answered = res));
    // Stopped once the page holds its slot; a reply before that is a failure to read, not a wait forever.
    while (renderer.slots.holding(id) < 1 && !answered) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered, `answered before it took a render slot: ${JSON.stringify(answered)}`).toBeUndefined();
    process.kill(stuck!, 'SIGSTOP');
    try {
      const res = await pending;
      // Stopped mid-render: the page deadline (504); stopped before its tab opened: the open's limit (503).
      expect([504, 503], JSON.stringify(res.body)).toContain(res.status);
      expect(['UPSTREAM_TIMEOUT', 'UPSTREAM_UNAVAILABLE']).toContain(res.body.error.code);
      expect(renderer.slots.holding(id)).toBe(0);
    } finally {
      // Already killed when the render gave up on it; resumed in case it was not, so nothing is left stopped.
      try {
        process.kill(stuck!, 'SIGCONT');
      } catch {
        // gone
      }
    }
    expect(browserProcesses()).not.toContain(stuck);
    const next = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/ordinary', render: 'always' })}`, { apiKey: key });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.rendered).toBe(true);
    expect(await credits(key)).toBe(96);
  }, 180_000);

  it('a 100 MB DOM is refused before it is serialised: 413 PAYLOAD_TOO_LARGE, charged nothing, with render=always and auto', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    for (const render of ['always', 'auto']) {
      const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/huge', render })}`, { apiKey: key });
      expect(res.status, `${render}: ${JSON.stringify(res.body).slice(0, 500)}`).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res.body.error.message).toMatch(/10 MB for a web page/);
      expect(JSON.stringify(res.body).length).toBeLessThan(2_000);
    }
    expect(await credits(key)).toBe(100);
  }, 120_000);

  it('a page allocating memory past GLEANER_RENDER_MEMORY_MB is stopped: a clear error, charged nothing', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const res = await server.request('GET', `/v1/web/scrape?${q({ url: 'http://hostile.test/hog', render: 'always', waitFor: '15000' })}`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(res.body.error.code).toBe('UPSTREAM_ERROR');
    expect(res.body.error.message).toContain('GLEANER_RENDER_MEMORY_MB');
    expect(await credits(key)).toBe(100);
  }, 120_000);

  it('a page navigating to a refused address is a failed render (never chrome-error://), charged nothing; under auto the plain page is read', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const url = `http://hostile.test/escape?${q({ to: `${secretOrigin}/steal` })}`;
    const always = await server.request('GET', `/v1/web/scrape?${q({ url, render: 'always' })}`, { apiKey: key });
    expect(always.status, JSON.stringify(always.body)).toBe(400);
    expect(always.body.error.code).toBe('URL_NOT_ALLOWED');
    expect(JSON.stringify(always.body)).not.toContain('chrome-error');
    expect(await credits(key)).toBe(100);
    const auto = await server.request('GET', `/v1/web/scrape?${q({ url })}`, { apiKey: key });
    // Not an app shell: auto reads it plainly, at the plain price.
    expect(auto.status, JSON.stringify(auto.body)).toBe(200);
    expect(auto.body.rendered).toBe(false);
    expect(auto.body.url).toBe(url);
    expect(await credits(key)).toBe(99);
    expect(secretHits).toEqual([]);
  }, 120_000);

  it('WebRTC is gone from every frame: a STUN/TURN server on loopback sees no packet from a rendered page', async () => {
    const ice = await startIceServers();
    try {
      const key = await server.createKey('Pro', { credits: 100 });
      const res = await server.request(
        'GET',
        `/v1/web/scrape?${q({ url: `http://hostile.test/webrtc?udp=${ice.udpPort}&tcp=${ice.tcpPort}`, render: 'always', waitFor: '#done', format: 'text', onlyMainContent: 'false' })}`,
        { apiKey: key },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.content).toContain('probe finished');
      expect(res.body.content).toContain('window: no RTCPeerConnection');
      expect(res.body.content).toContain('iframe: no RTCPeerConnection');
      expect(res.body.content).toContain('worker: undefined');
      expect(ice.seen).toEqual([]);
    } finally {
      await ice.close();
    }
  }, 120_000);

  it("the browser's launch flags and the contexts' closed proxy alone keep WebRTC off the network: a peer connection made without the init script sends nothing", async () => {
    const ice = await startIceServers();
    const { chromium } = await import('playwright-core');
    const local = await chromium.launch({ executablePath: (browser as { executablePath: string }).executablePath, args: launchArgs(512), timeout: 60_000 });
    try {
      const context = await local.newContext({ proxy: DEAD_PROXY });
      await context.route('**/*', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: page('WebRTC', `<div id="out"></div><script>${webrtcProbe(String(ice.udpPort), String(ice.tcpPort))}</script>`) }));
      const tab = await context.newPage();
      await tab.goto('http://webrtc.test/');
      await tab.waitForSelector('#done', { state: 'attached', timeout: 60_000 });
      const text = await tab.textContent('#out');
      // The constructor is there (no init script), yet no candidate is gathered and nothing is sent.
      expect(text).toContain('window: candidates 0');
      expect(ice.seen).toEqual([]);
    } finally {
      await local.close();
      await ice.close();
    }
  }, 120_000);
});

/** The browsers this process launched: its children whose command line carries Gleaner's marker. */
function browserProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const zombie = stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
      if (ppid === process.pid && !zombie && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--gleaner-browser=')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
