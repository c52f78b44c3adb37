/**
 * A small site on loopback whose pages answer only when the test lets them, so a crawl can be held
 * mid-way while processes start, stop or cancel it. Its sitemap lists /p/1 .. /p/<pages>.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedSite {
  origin: string;
  /** Page paths requested so far. */
  requested: string[];
  /** Resolves once `count` pages have been requested in all. */
  requestedAtLeast(count: number): Promise<void>;
  /** Lets `count` held (or future) page requests answer. */
  release(count: number): void;
  releaseAll(): void;
  close(): Promise<void>;
}

export async function startGatedSite(pages: number): Promise<GatedSite> {
  const requested: string[] = [];
  const held: Array<() => void> = [];
  let credit = 0;
  let open = false;
  const watchers: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    const origin = `http://${req.headers.host}`;
    if (path === '/robots.txt') return res.end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      res.setHeader('content-type', 'application/xml');
      const urls = Array.from({ length: pages }, (_, i) => `<url><loc>${origin}/p/${i + 1}</loc></url>`).join('');
      return res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    requested.push(path);
    for (const wake of watchers.splice(0)) wake();
    const answer = () => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html><head><title>Page ${path}</title></head><body><article><h1>${path}</h1><p>The text of ${path}, long enough to be kept as the main content of this page by the extractor.</p></article></body></html>`);
    };
    if (open) return answer();
    if (credit > 0) {
      credit--;
      return answer();
    }
    held.push(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    async requestedAtLeast(count) {
      while (requested.length < count) await new Promise<void>((resolve) => watchers.push(resolve));
    },
    release(count) {
      for (let i = 0; i < count; i++) {
        const next = held.shift();
        if (next) next();
        else credit++;
      }
    },
    releaseAll() {
      open = true;
      for (const next of held.splice(0)) next();
    },
    async close() {
      open = true;
      for (const next of held.splice(0)) next();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
