/**
 * A single-page-app website on loopback for the rendering tests and bench: every page is an app
 * shell (an empty <div id="root"> and a script) whose article and links a script builds from a JSON
 * API, so a reader that does not run scripts sees neither. Hand-written for Gleaner, not captured.
 *
 *   /, /article/<n>        the shell of article n (1..pages); /api/article/<n> its JSON; /app.js the app
 *                          (article n links to n+1, 2n and 2n+1, so every article is reachable from /)
 *   /fixture               test/fixtures/render/app-shell.html (its text from /api/lighthouse.json)
 *   /late                  text added 700 ms after load by a timer, with no request to wait on
 *   /probe?target=<origin> a page whose script tries to reach `target` (a loopback server the test
 *                          owns) by fetch, XHR, iframe, a redirect, beacon, a worker and WebSockets
 *   /redirect?to=<url>     a 302 to `to`
 *   /challenge             a 503 JavaScript challenge (its script sets a cookie and reloads); with the cookie, an article
 * WebSocket upgrade attempts are counted (`upgrades`) and refused; every request path is recorded.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'render');

export interface AppShellSite {
  origin: string;
  port: number;
  requests: string[];
  upgrades: string[];
  close(): Promise<void>;
}

export function articlePath(n: number): string {
  return n === 1 ? '/' : `/article/${n}`;
}

const shell = (title: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<script src="/app.js" defer></script></head>
<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`;

const APP_JS = `(async () => {
  const match = location.pathname.match(/^\\/article\\/(\\d+)$/);
  const n = match ? Number(match[1]) : 1;
  const data = await (await fetch('/api/article/' + n)).json();
  document.title = data.title;
  const article = document.createElement('article');
  const h1 = document.createElement('h1');
  h1.textContent = data.title;
  article.appendChild(h1);
  for (const text of data.paragraphs) {
    const p = document.createElement('p');
    p.textContent = text;
    article.appendChild(p);
  }
  const list = document.createElement('ul');
  for (const link of data.links) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = link.href;
    a.textContent = link.text;
    li.appendChild(a);
    list.appendChild(li);
  }
  article.appendChild(list);
  document.getElementById('root').appendChild(article);
})();`;

function article(n: number, pages: number) {
  return {
    title: `Article ${n} of the app`,
    paragraphs: [
      `Article ${n} was built in the browser by the app's script, from a JSON reply, after the page loaded.`,
      `It covers topic ${n % 5} in a few sentences, so that the main content extraction has a paragraph or two to keep for article ${n}.`,
    ],
    links: [n + 1, 2 * n, 2 * n + 1].filter((m) => m <= pages).map((m) => ({ href: articlePath(m), text: `Read article ${m}` })),
  };
}

const probe = (target: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Probe</title></head>
<body><div id="root"></div>
<script>
  const target = ${JSON.stringify(target)};
  const wsTarget = target.replace(/^http/, 'ws');
  const log = (line) => { const p = document.createElement('p'); p.textContent = line; document.getElementById('root').appendChild(p); };
  log('The probe page ran its script and wrote this paragraph, which is long enough to be read as the article of the page.');
  fetch(target + '/secret').then((r) => r.text()).then((t) => log('fetch got ' + t), () => log('fetch was refused'));
  fetch('/redirect?to=' + encodeURIComponent(target + '/secret-redirected')).then((r) => r.text()).then((t) => log('redirect got ' + t), () => log('redirect was refused'));
  const xhr = new XMLHttpRequest();
  xhr.open('GET', target + '/secret-xhr');
  xhr.onload = () => log('xhr got ' + xhr.responseText);
  xhr.onerror = () => log('xhr was refused');
  xhr.send();
  navigator.sendBeacon(target + '/secret-beacon', 'x');
  const frame = document.createElement('iframe');
  frame.src = target + '/secret-frame';
  document.body.appendChild(frame);
  new Worker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(target + '/secret-worker') + ').catch(() => {})'])));
  for (const url of [wsTarget + '/socket', 'ws://' + location.host + '/socket']) {
    try {
      const socket = new WebSocket(url);
      socket.onopen = () => log('websocket opened to ' + url);
      socket.onclose = (event) => log('websocket closed (' + event.code + ')');
    } catch (error) {
      log('websocket failed');
    }
  }
</script></body></html>`;

const LATE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Late</title></head>
<body><div id="root"></div>
<script>setTimeout(() => {
  const p = document.createElement('p');
  p.id = 'late';
  p.textContent = 'This paragraph arrived late, seven tenths of a second after the page loaded, with no request to wait for.';
  document.getElementById('root').appendChild(p);
}, 700);</script></body></html>`;

const CHALLENGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Just a moment...</title></head>
<body><p>Checking your browser before accessing the site.</p>
<script>setTimeout(() => { document.cookie = 'passed=1; path=/'; location.reload(); }, 50);</script></body></html>`;

const CHALLENGE_PASSED = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Behind the challenge</title></head>
<body><article><h1>Behind the challenge</h1>
<p>This article is served only to a browser that ran the challenge's script, which set the cookie it asked for and reloaded the page.</p>
<p>A reader that does not run scripts sees the challenge page and nothing of this text.</p></article></body></html>`;

/**
 * What the browser says it is, as the page's scripts see it and as its own fetch sends it: written
 * into the page as text (an app shell, so auto renders it).
 */
const IDENTITY = `<!doctype html>
<html><head><meta charset="utf-8"><title>Identity</title></head>
<body><div id="root"></div>
<script>
fetch('/api/headers').then((r) => r.json()).then((headers) => {
  const lines = [
    'navigator.language=' + navigator.language,
    'navigator.languages=' + navigator.languages.join(' '),
    'navigator.userAgent=' + navigator.userAgent,
    'fetch.accept-language=' + (headers['accept-language'] || '(none)'),
    'fetch.user-agent=' + headers['user-agent'],
  ];
  const article = document.createElement('article');
  for (const line of lines) {
    const p = document.createElement('p');
    p.textContent = line;
    article.appendChild(p);
  }
  document.getElementById('root').appendChild(article);
});
</script></body></html>`;

/**
 * What a page remembers: the cookie and localStorage value it finds (none, on a fresh context), then
 * sets both, so a second call would see them if anything crossed calls.
 */
const MEMORY = `<!doctype html>
<html><head><meta charset="utf-8"><title>Memory</title></head>
<body><div id="root"></div>
<script>
const found = 'cookie=' + (document.cookie || '(none)') + ' storage=' + (localStorage.getItem('seen') || '(none)');
document.cookie = 'seen=' + Date.now() + '; path=/; max-age=3600';
localStorage.setItem('seen', String(Date.now()));
const p = document.createElement('p');
p.textContent = 'This page remembered: ' + found + '. A fresh browser context remembers nothing of an earlier call.';
document.getElementById('root').appendChild(p);
</script></body></html>`;

/**
 * Text a timer adds after load with no request to wait for: seen only when the render waits long
 * enough. The page has text of its own (not an app shell, which a render waits for by itself).
 */
const TIMED = `<!doctype html>
<html><head><meta charset="utf-8"><title>Timed</title></head>
<body><main><p>${'This page has text of its own before any script runs, so it is no app shell waiting for its content; only what a timer adds later needs the render to wait. '.repeat(8)}</p><div id="late-root"></div></main>
<script>setTimeout(() => {
  const p = document.createElement('p');
  p.textContent = 'This paragraph came after one and a fifth seconds, on a timer alone, with nothing on the network to wait for.';
  document.getElementById('late-root').appendChild(p);
}, 1200);</script></body></html>`;

export async function startAppShellSite(options: { pages: number; latencyMs?: number }): Promise<AppShellSite> {
  const requests: string[] = [];
  const upgrades: string[] = [];
  const fixture = fs.readFileSync(path.join(FIXTURES, 'app-shell.html'));
  const lighthouse = fs.readFileSync(path.join(FIXTURES, 'lighthouse.json'));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    requests.push(url.pathname + url.search);
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      const answer = () => {
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(body);
      };
      if (options.latencyMs && type.startsWith('text/html')) setTimeout(answer, options.latencyMs);
      else answer();
    };
    const p = url.pathname;
    if (p === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nAllow: /\n');
    if (p === '/app.js') return send(200, 'text/javascript', APP_JS);
    if (p === '/fixture') return send(200, 'text/html; charset=utf-8', fixture);
    if (p === '/api/lighthouse.json') return send(200, 'application/json', lighthouse);
    if (p === '/late') return send(200, 'text/html; charset=utf-8', LATE);
    if (p === '/identity') return send(200, 'text/html; charset=utf-8', IDENTITY);
    if (p === '/api/headers') return send(200, 'application/json', JSON.stringify(req.headers));
    if (p === '/memory') return send(200, 'text/html; charset=utf-8', MEMORY);
    if (p === '/timed') return send(200, 'text/html; charset=utf-8', TIMED);
    if (p === '/timed-site') return send(200, 'text/html; charset=utf-8', TIMED.replace('</script>', "; setTimeout(() => { const a = document.createElement('a'); a.href = '/timed-linked'; a.textContent = 'the page a timer links to'; document.getElementById('late-root').appendChild(a); }, 1200);</script>"));
    if (p === '/timed-linked') return send(200, 'text/html; charset=utf-8', TIMED);
    if (p === '/probe') return send(200, 'text/html; charset=utf-8', probe(url.searchParams.get('target') ?? ''));
    if (p === '/challenge') {
      // A JavaScript challenge in the manner of the common bot checks: pass it by running its script.
      if (/\bpassed=1\b/.test(String(req.headers.cookie ?? ''))) return send(200, 'text/html; charset=utf-8', CHALLENGE_PASSED);
      return send(503, 'text/html; charset=utf-8', CHALLENGE);
    }
    if (p === '/redirect') return send(302, 'text/plain', '', { location: url.searchParams.get('to') ?? '/' });
    const api = p.match(/^\/api\/article\/(\d+)$/);
    if (api && Number(api[1]) >= 1 && Number(api[1]) <= options.pages) return send(200, 'application/json', JSON.stringify(article(Number(api[1]), options.pages)));
    const n = p === '/' ? 1 : Number(p.match(/^\/article\/(\d+)$/)?.[1] ?? NaN);
    if (Number.isInteger(n) && n >= 1 && n <= options.pages) return send(200, 'text/html; charset=utf-8', shell('Loading…'));
    send(404, 'text/plain', 'not found');
  });
  server.on('upgrade', (req, socket) => {
    upgrades.push(req.url ?? '');
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    upgrades,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
