/**
 * A generated website on loopback for web tests and benchmarks: any number of linked pages,
 * sitemaps (plain, index, gzipped index), robots.txt rules, redirects, a windows-1252 page, a
 * binary file, slow and failing pages, and the real captured pages of test/fixtures/web under
 * /real/<name>/. It records every request so tests can check what was (not) fetched.
 *
 * Page n (1..pages) lives at / for n = 1 and /page/<n> otherwise, and links to pages n+1, 2n and
 * 2n+1 (so the whole site is reachable from /), to /private/<n> (disallowed by robots.txt), to an
 * external site, and to itself with a fragment and with a doubled slash (normalisation).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REAL_PAGES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'web');

export interface FixtureSiteOptions {
  pages: number;
  /** How the sitemap is served: listed in robots.txt as a plain file, a gzipped index of gzipped parts, or none. */
  sitemap?: 'plain' | 'gzip-index' | 'none';
  /** How many pages the sitemap lists (default all). */
  sitemapPages?: number;
  /** Delay before every page answer (benchmarks). */
  latencyMs?: number;
  /** Extra robots.txt lines for the `*` group. */
  robotsRules?: string[];
  /** Link the special pages (legacy charset, binary, slow, failing, redirect) from page 1. */
  extras?: boolean;
}

export interface FixtureSite {
  origin: string;
  port: number;
  /** Paths requested, in order (query included). */
  requests: string[];
  close(): Promise<void>;
}

export function pagePath(n: number): string {
  return n === 1 ? '/' : `/page/${n}`;
}

function pageHtml(n: number, total: number, extras: boolean, host: string): string {
  const links = [n + 1, 2 * n, 2 * n + 1].filter((m) => m <= total).map((m) => `<li><a href="${pagePath(m)}">Page ${m}</a></li>`);
  const special = extras && n === 1
    ? ['/legacy', '/file.bin', '/slow', '/fail', '/missing', '/redirect/2', '/redirect/3'].map((p) => `<li><a href="${p}">${p}</a></li>`).join('')
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Page ${n} | Fixture Site</title>
<meta name="description" content="Description of page ${n}">
<script>window.tracking = "do not include this";</script><style>body { color: red }</style></head>
<body>
<nav><a href="/">Home</a> <a href="HTTP://${host}/#top">Top</a></nav>
<div id="cookie-banner">We use cookies. Accept?</div>
<article>
<h1>Page ${n}</h1>
<p>This is the body of page number ${n}. It talks about topic ${n % 7} in several sentences, so that main content extraction has something to find here.</p>
<p>A second paragraph for page ${n} with a <a href="${pagePath(n)}#section">link to itself</a>, ${n > 1 ? `a <a href="/page//${n}">doubled slash</a>, ` : ''}and a <a href="http://elsewhere.example/">link off the site</a>.</p>
<ul>${links.join('')}<li><a href="/private/${n}">private ${n}</a></li>${special}</ul>
</article>
<footer>Footer text of the fixture site</footer>
</body></html>`;
}

const WINDOWS_1252_PAGE = Buffer.concat([
  Buffer.from('<!doctype html><html><head><meta charset="windows-1252"><title>Legacy caf'),
  Buffer.from([0xe9]),
  Buffer.from('</title></head><body><article><h1>Legacy page</h1><p>Price: 5 '),
  Buffer.from([0x80]),
  Buffer.from(', a '),
  Buffer.from([0x93]),
  Buffer.from('quoted'),
  Buffer.from([0x94]),
  Buffer.from(' word, and na'),
  Buffer.from([0xef]),
  Buffer.from('ve caf'),
  Buffer.from([0xe9]),
  Buffer.from(' text that is long enough to be an article body for the extractor to keep it.</p></article></body></html>'),
]);

export async function startFixtureSite(options: FixtureSiteOptions): Promise<FixtureSite> {
  const requests: string[] = [];
  const total = options.pages;
  const listed = Math.min(options.sitemapPages ?? total, total);
  const sitemapKind = options.sitemap ?? 'plain';
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    requests.push(url.pathname + url.search);
    // Absolute URLs (sitemaps) use the host the client asked for, which overrides keep.
    const host = (req.headers['x-forwarded-host'] as string | undefined) ?? req.headers.host;
    const origin = `http://${host}`;
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    const later = (ms: number, fn: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    };
    const p = url.pathname;

    if (p === '/robots.txt') {
      const lines = ['User-agent: *', 'Disallow: /private/', ...(options.robotsRules ?? [])];
      if (sitemapKind === 'plain') lines.push(`Sitemap: ${origin}/sitemap.xml`);
      if (sitemapKind === 'gzip-index') lines.push(`Sitemap: ${origin}/sitemap_index.xml.gz`);
      lines.push('', 'User-agent: otherbot', 'Disallow: /');
      return send(200, 'text/plain', lines.join('\n'));
    }
    const urlset = (from: number, to: number) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${Array.from(
        { length: Math.max(0, to - from + 1) },
        (_, i) => `<url><loc>${origin}${pagePath(from + i)}</loc></url>`,
      ).join('\n')}\n</urlset>`;
    if (p === '/sitemap.xml' && sitemapKind === 'plain') return send(200, 'application/xml', urlset(1, listed));
    const parts = Math.ceil(listed / 100);
    if (p === '/sitemap_index.xml.gz' && sitemapKind === 'gzip-index') {
      const index = `<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from(
        { length: parts },
        (_, i) => `<sitemap><loc>${origin}/sitemaps/part-${i + 1}.xml.gz</loc></sitemap>`,
      ).join('')}</sitemapindex>`;
      return send(200, 'application/x-gzip', zlib.gzipSync(index));
    }
    const part = p.match(/^\/sitemaps\/part-(\d+)\.xml\.gz$/);
    if (part && sitemapKind === 'gzip-index') {
      const i = Number(part[1]) - 1;
      if (i >= parts) return send(404, 'text/plain', 'no such part');
      return send(200, 'application/x-gzip', zlib.gzipSync(urlset(i * 100 + 1, Math.min(listed, i * 100 + 100))));
    }

    if (p === '/page/1') {
      res.writeHead(301, { location: '/' });
      return res.end();
    }
    const page = p === '/' ? 1 : Number(p.match(/^\/page\/(\d+)$/)?.[1] ?? NaN);
    if (Number.isInteger(page) && page >= 1 && page <= total) {
      const body = pageHtml(page, total, options.extras ?? false, String(host).toUpperCase());
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      const answer = () =>
        gzip ? send(200, 'text/html; charset=utf-8', zlib.gzipSync(body), { 'content-encoding': 'gzip' }) : send(200, 'text/html; charset=utf-8', body);
      return options.latencyMs ? later(options.latencyMs, answer) : answer();
    }
    const redirect = p.match(/^\/redirect\/(\d+)$/);
    if (redirect) {
      res.writeHead(301, { location: pagePath(Number(redirect[1])) });
      return res.end();
    }
    if (p.startsWith('/private/')) return send(200, 'text/html', '<html><body><h1>Private</h1></body></html>');
    if (p === '/legacy') return send(200, 'text/html', WINDOWS_1252_PAGE);
    if (p === '/file.bin') return send(200, 'application/octet-stream', Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0, 9, 8]));
    if (p === '/notes.txt') return send(200, 'text/plain; charset=utf-8', 'Plain notes.\nSecond line é.');
    // Slow beyond any timeout a test sets (a loaded machine stretches the fast pages toward a short one).
    if (p === '/slow') return later(30_000, () => send(200, 'text/html', '<html><body><p>Finally.</p></body></html>'));
    if (p === '/fail') return send(500, 'text/html', '<html><body>Internal error</body></html>');
    if (p === '/to-loopback') {
      res.writeHead(302, { location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/secret` });
      return res.end();
    }
    const real = p.match(/^\/real\/([\w.-]+)\/?$/);
    if (real && fs.existsSync(path.join(REAL_PAGES_DIR, real[1], 'source.html'))) {
      return send(200, 'text/html; charset=utf-8', fs.readFileSync(path.join(REAL_PAGES_DIR, real[1], 'source.html')));
    }
    return send(404, 'text/html', '<html><body><h1>Not found</h1></body></html>');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
