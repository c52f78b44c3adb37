/**
 * No 500 and no empty reply on a real page: every real page of test/fixtures (the web pages and the
 * platforms' recorded HTML pages), a set of generated broken pages (test/support/malformed-html.ts)
 * and each kind of content before <html> go through GET /v1/web/scrape of a real server, in every
 * format (markdown, text, html), main content and whole page. A page with no text at all answers its
 * title and links with the no-text warning, never a blank. Then the breakages the issue
 * names, one by one, and the request identity (user agent, Accept-Language, lang, noLinks).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { REAL_PAGES_DIR, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { BEFORE_HTML, malformedPage } from '../support/malformed-html.js';
import { extractPage, NO_TEXT_WARNING } from '../../src/web/extract.js';
import { acceptLanguage } from '../../src/net/identity.js';

const GENERATED_PAGES = 40;
const FIXTURES_DIR = path.dirname(REAL_PAGES_DIR);
const FORMATS = ['markdown', 'text', 'html'] as const;

let server: TestServer;
let site: FixtureSite;
let key: string;
let pages: http.Server;
let pagesOrigin: string;
/** Request headers of every request to the generated-pages server, by path. */
const seen = new Map<string, http.IncomingHttpHeaders>();
/** Pages the test serves as they are, by path. */
const servedPages = new Map<string, string>();

beforeAll(async () => {
  site = await startFixtureSite({ pages: 1 });
  pages = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.set(url.pathname, req.headers);
    const generated = /^\/generated\/(\d+)$/.exec(url.pathname);
    const html = generated ? malformedPage(Number(generated[1])).html : servedPages.get(url.pathname);
    if (html === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagesOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true' } });
  key = await server.createKey('Enterprise');
});

afterAll(async () => {
  await server?.close();
  await site?.close();
  pages?.closeAllConnections();
  await new Promise<void>((resolve) => pages.close(() => resolve()));
});

interface Case {
  label: string;
  url: string;
  /** Words of which the reply must contain at least one (generated pages). */
  words?: string[];
  /** A page with no text at all: empty content is right, with the no-text warning. */
  textless?: boolean;
}

/** Every case in every format and mode through REST, a few at a time; returns the failures. */
async function scrapeAll(cases: Case[]): Promise<string[]> {
  const runs = cases.flatMap((c) => FORMATS.flatMap((format) => [true, false].map((main) => ({ ...c, format, main }))));
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const run = runs[next++];
      const response = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(run.url)}&format=${run.format}&onlyMainContent=${run.main}`, { apiKey: key });
      const where = `${run.label} ${run.format} ${run.main ? 'main' : 'page'}`;
      if (response.status !== 200) failures.push(`${where}: ${response.status} ${JSON.stringify(response.body?.error)}`);
      else if (!response.body.content.trim()) {
        if (!run.textless) failures.push(`${where}: empty content`);
        else if (!response.body.warnings?.includes(NO_TEXT_WARNING)) failures.push(`${where}: empty content without the no-text warning`);
      } else if (run.textless) failures.push(`${where}: content on a page without text (the test's list is wrong)`);
      else if (run.words && !run.words.some((word) => response.body.content.toLowerCase().includes(word))) failures.push(`${where}: none of the page's words`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return failures;
}

describe('scrape never answers 500 or empty on a real page', () => {
  it('every real fixture page, in markdown, text and html, main content and whole page', async () => {
    const names = fs.readdirSync(REAL_PAGES_DIR).filter((name) => fs.existsSync(path.join(REAL_PAGES_DIR, name, 'source.html')));
    expect(names.length).toBeGreaterThanOrEqual(60);
    const failures = await scrapeAll(names.map((name) => ({ label: name, url: `${site.origin}/real/${name}/` })));
    expect(failures).toEqual([]);
  }, 1_200_000);

  it("the platforms' recorded HTML pages in test/fixtures (Facebook, Instagram, TikTok, an app shell)", async () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.html?$/.test(entry.name)) files.push(file);
      }
    };
    for (const entry of fs.readdirSync(FIXTURES_DIR)) if (entry !== 'web' && fs.statSync(path.join(FIXTURES_DIR, entry)).isDirectory()) walk(path.join(FIXTURES_DIR, entry));
    expect(files.length).toBeGreaterThanOrEqual(10);
    const cases = files.map((file, i) => {
      const html = fs.readFileSync(file, 'utf8');
      servedPages.set(`/fixture/${i}`, html);
      // Pages that are scripts only (two TikTok pages: <body></body> and scripts), told by their source.
      const visible = html.replace(/<(script|style|template)\b[\s\S]*?<\/\1\s*>/gi, '').replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]*>/g, '');
      const textless = !/\S/.test(visible);
      return { label: path.relative(FIXTURES_DIR, file), url: `${pagesOrigin}/fixture/${i}`, textless };
    });
    expect(cases.filter((c) => c.textless).length).toBeLessThanOrEqual(2);
    const failures = await scrapeAll(cases);
    expect(failures).toEqual([]);
  }, 1_200_000);

  it('each kind of content before <html> (scripts, comments, a meta, text, an XML declaration, junk), before each page shape', async () => {
    const shapes = [
      '<!doctype html><html lang="en"><head><title>Before</title></head><body><nav><a href="/">Home</a></nav><article><h1>Heading</h1><p>Quartz lantern paragraph of the page.</p></article></body></html>',
      '<html><body><p>Quartz lantern paragraph of the page.</p></body></html>',
      '<html><head><title>Before</title></head><p>Quartz lantern paragraph of the page.</p></html>',
      `<html><head><title>Before</title></head><body><main><p>${LONG}</p><p>Quartz lantern paragraph of the page.</p></main></body></html>`,
    ];
    const cases = BEFORE_HTML.flatMap(([kind, before], i) =>
      shapes.map((shape, j) => {
        servedPages.set(`/before/${i}/${j}`, before + shape);
        return { label: `${kind}, shape ${j}`, url: `${pagesOrigin}/before/${i}/${j}`, words: ['quartz lantern paragraph'] };
      }),
    );
    const failures = await scrapeAll(cases);
    expect(failures).toEqual([]);
  }, 1_200_000);

  it(`${GENERATED_PAGES} generated broken pages (orphan cells, nested html, forms, no body, deep nesting, huge attributes, stray bytes...)`, async () => {
    const cases = Array.from({ length: GENERATED_PAGES }, (_, i) => {
      const page = malformedPage(i + 1);
      return { label: `seed ${page.seed} (${page.kinds.join('; ')})`, url: `${pagesOrigin}/generated/${page.seed}`, words: page.words };
    });
    const failures = await scrapeAll(cases);
    expect(failures).toEqual([]);
  }, 1_200_000);

  it('the generator is deterministic: a seed gives the same page', () => {
    expect(malformedPage(7).html).toBe(malformedPage(7).html);
    expect(malformedPage(7).html).not.toBe(malformedPage(8).html);
  });
});

const extract = (html: string, format: 'markdown' | 'text' | 'html', onlyMainContent = true) =>
  extractPage(html, { url: 'https://site.example/page', format, onlyMainContent });

const LONG = 'This sentence is part of a long enough paragraph for the article to count as one. '.repeat(8);

describe('the breakages behind the 500s and the empty replies', () => {
  it('table cells and rows outside any table become plain blocks in markdown, with their text', () => {
    const html = `<html><body><article><p>${LONG}</p><div><td>Orphan cell text</td><tr><td>Row cell text</td>\n</tr></div><table><tr> stray <td>A</td> <td>B</td></tr><tr><td>C</td><td>D</td></tr></table></article></body></html>`;
    for (const main of [true, false]) {
      const page = extract(html, 'markdown', main);
      expect(page.warnings).toEqual([]);
      expect(page.content).toContain('Orphan cell text');
      expect(page.content).toContain('Row cell text');
      expect(page.content).toMatch(/\|\s*C\s*\|\s*D\s*\|/);
    }
  });

  it('an article inside a <form> (ASP.NET) keeps its text in markdown', () => {
    const html = `<html><body><form id="aspnetForm" method="post"><input type="hidden" name="__VIEWSTATE" value="x"><div id="content"><h1>Title</h1><p>${LONG}</p><p>Second paragraph of the form page.</p></div><button>Send</button></form></body></html>`;
    for (const main of [true, false]) {
      const page = extract(html, 'markdown', main);
      expect(page.content).toContain('Second paragraph of the form page.');
      expect(page.content).not.toContain('Send');
    }
  });

  it('a <main> inside an <aside> survives the furniture removal when Readability finds nothing', () => {
    const html = '<html><body><nav>Menu</nav><aside class="shell"><main><p>Short text in main.</p></main></aside><footer>Foot</footer></body></html>';
    for (const format of FORMATS) expect(extract(html, format).content).toContain('Short text in main.');
  });

  it('a page without <body>, with content after </html> or in <head>, or with a second <html>, gives its text in whole-page mode', () => {
    const shapes = [
      '<html><head><title>t</title></head><div><p>No body tag here.</p></div></html>',
      '<html><head><title>t</title></head><body></body></html><p>No body tag here.</p>',
      '<html><head><title>t</title><p>No body tag here.</p></head><body></body></html>',
      '<html><head><title>t</title></head><html><body><p>No body tag here.</p></body></html></html>',
      '<head><title>t</title></head><p>No body tag here.</p>',
    ];
    for (const html of shapes) for (const format of FORMATS) expect(extract(html, format, false).content, html).toContain('No body tag here.');
  });

  it('content before <html> lands where a browser puts it: head elements out of the text, text and elements before the page', () => {
    const page = '<html><head><title>T</title></head><body><p>Body text of the page.</p></body></html>';
    for (const main of [true, false]) {
      expect(extract(`<script>var a = 1;</script>${page}`, 'text', main).content).toBe('Body text of the page.');
      expect(extract(`<meta charset="utf-8">${page}`, 'html', main).content).not.toContain('<meta');
      expect(extract(`Notice: debug output\n${page}`, 'text', main).content).toBe('Notice: debug output\n\nBody text of the page.');
    }
    expect(extract(`<!-- c --><script>x()</script><!doctype html>${page}`, 'markdown', false).title).toBe('T');
    // An <html> inside a conditional comment is not the page's: nothing moves, and the title is read.
    const conditional = `<!DOCTYPE html>\n<!--[if lt IE 9]><html class="ie"><![endif]-->\n<!--[if gte IE 9]><!-->\n${page}`;
    expect(extract(conditional, 'text', false).content).toBe('Body text of the page.');
    expect(extract(conditional, 'html', false).title).toBe('T');
  });

  it('a page without any text answers empty content with the no-text warning', () => {
    for (const html of ['', '<html><head></head><body></body></html>', '<!doctype html><html><head></head><body><script>app()</script></body></html>']) {
      for (const format of FORMATS) {
        for (const main of [true, false]) {
          const page = extract(html, format, main);
          expect(page.content).toBe('');
          expect(page.warnings).toEqual([NO_TEXT_WARNING]);
        }
      }
    }
  });

  it('a converter that fails on a page falls back to plain text with a warning, over REST too', async () => {
    // Nesting deeper than turndown's recursion can follow: markdown fails, the text conversion does not.
    servedPages.set('/deep', `<html><body>${'<div><span>'.repeat(5_000)}<p>Deep text survives.</p>${'</span></div>'.repeat(5_000)}</body></html>`);
    const response = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${pagesOrigin}/deep`)}&onlyMainContent=false`, { apiKey: key });
    expect(response.status).toBe(200);
    expect(response.body.content).toContain('Deep text survives.');
    expect(response.body.warnings).toEqual([expect.stringMatching(/markdown conversion failed.*plain text instead/)]);
  }, 180_000);
});

describe('request identity, lang and noLinks', () => {
  const article = `<html><head><title>Links</title></head><body><article><h1>Links</h1><p>${LONG} Read <a href="/next">the next page</a> and see <img src="/pic.png" alt="a picture">.</p></article></body></html>`;

  it('page fetches send a current Chrome user agent and Accept-Language from lang (default English)', async () => {
    servedPages.set('/identity', article);
    await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${pagesOrigin}/identity`)}`, { apiKey: key });
    const plain = seen.get('/identity')!;
    expect(plain['user-agent']).toMatch(/^Mozilla\/5\.0 \(.+\) AppleWebKit\/537\.36 \(KHTML, like Gecko\) Chrome\/\d{3}\.0\.0\.0 Safari\/537\.36$/);
    expect(plain['accept-language']).toBe('en-US,en;q=0.9');
    expect(plain.accept).toMatch(/^text\/html/);
    await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${pagesOrigin}/identity`)}&lang=de`, { apiKey: key });
    expect(seen.get('/identity')!['accept-language']).toBe('de,*;q=0.5');
    expect(acceptLanguage('pt_BR')).toBe('pt-BR,pt;q=0.9,*;q=0.5');
  });

  it('map sends lang while it discovers links, and takes noLinks', async () => {
    servedPages.set('/map-start', article);
    const response = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(`${pagesOrigin}/map-start`)}&lang=fr&noLinks=true`, { apiKey: key });
    expect(response.status).toBe(200);
    expect(response.body.urls).toContain(`${pagesOrigin}/next`);
    expect(seen.get('/map-start')!['accept-language']).toBe('fr,*;q=0.5');
  });

  it('noLinks keeps link text and image alt text without their URLs; urls still lists the links', async () => {
    servedPages.set('/links', article);
    const url = encodeURIComponent(`${pagesOrigin}/links`);
    const withLinks = await server.request('GET', `/v1/web/scrape?url=${url}`, { apiKey: key });
    expect(withLinks.body.content).toContain(`[the next page](${pagesOrigin}/next)`);
    const without = await server.request('GET', `/v1/web/scrape?url=${url}&noLinks=true`, { apiKey: key });
    expect(without.status).toBe(200);
    expect(without.body.content).toContain('Read the next page and see a picture.');
    expect(without.body.content).not.toContain('](');
    expect(without.body.urls).toContain(`${pagesOrigin}/next`);
    const html = await server.request('GET', `/v1/web/scrape?url=${url}&noLinks=true&format=html`, { apiKey: key });
    expect(html.body.content).toContain('the next page');
    expect(html.body.content).not.toContain('<a ');
  });

  it('a bad lang is a 400, not an unknown parameter', async () => {
    for (const lang of ['english!', 'x'.repeat(40)]) {
      const response = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${pagesOrigin}/links`)}&lang=${lang}`, { apiKey: key });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('INVALID_REQUEST');
      expect(response.body.error.message).toMatch(/lang/);
    }
  });
});
