import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Event } from 'linkedom';
import { parseDocument } from '../../src/web/dom.js';
import { parseRobots } from '../../src/web/robots.js';
import { parseSitemap } from '../../src/web/sitemap.js';
import { normalizeUrl, sameSite, siteOf, looksLikePage } from '../../src/web/urls.js';
import { drainQueue } from '../../src/web/pool.js';

describe('URL normalisation', () => {
  it('lower-cases scheme and host, drops default ports, fragments and duplicate slashes', () => {
    expect(normalizeUrl('HTTP://Example.COM:80//a//b/?#frag')).toBe('http://example.com/a/b/');
    expect(normalizeUrl('https://example.com:443/x?b=2&a=1#y')).toBe('https://example.com/x?b=2&a=1');
    expect(normalizeUrl('../c', 'https://example.com/a/b/')).toBe('https://example.com/a/c');
    expect(normalizeUrl('mailto:x@example.com')).toBeNull();
    expect(normalizeUrl('ftp://example.com/')).toBeNull();
    expect(siteOf('https://www.Example.com/a')).toBe('example.com');
    expect(sameSite('http://example.com/x', 'example.com')).toBe(true);
    expect(sameSite('http://sub.example.com/x', 'example.com')).toBe(false);
    expect(looksLikePage('https://example.com/report.pdf')).toBe(false);
    expect(looksLikePage('https://example.com/article')).toBe(true);
  });
});

describe('the crawl work queue', () => {
  it('starts the next item when one releases its slot, keeps at most twice the slots unfinished, and waits for all', async () => {
    const queue = Array.from({ length: 20 }, (_, i) => i);
    const finishers: Array<() => void> = [];
    let holding = 0;
    let unfinished = 0;
    let peakHolding = 0;
    let peakUnfinished = 0;
    const done: number[] = [];
    const drained = drainQueue(queue, 3, async (item, release) => {
      holding++;
      unfinished++;
      peakHolding = Math.max(peakHolding, holding);
      peakUnfinished = Math.max(peakUnfinished, unfinished);
      await new Promise((resolve) => setImmediate(resolve));
      // "Fetched": the slot goes back while the item goes on (its extraction).
      holding--;
      release();
      await new Promise<void>((resolve) => finishers.push(resolve));
      unfinished--;
      done.push(item);
    });
    while (done.length < 20) {
      await new Promise((resolve) => setImmediate(resolve));
      finishers.shift()?.();
    }
    await drained;
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(peakHolding).toBe(3);
    expect(peakUnfinished).toBe(6);
  });

  it('without release, keeps to the slots and stops starting when canStart says no', async () => {
    const queue = Array.from({ length: 10 }, (_, i) => i);
    let running = 0;
    let peak = 0;
    let started = 0;
    await drainQueue(
      queue,
      2,
      async () => {
        started++;
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
      },
      () => started < 7,
    );
    expect(peak).toBe(2);
    expect(started).toBe(7);
    expect(queue.length).toBe(3);
  });
});

describe('robots.txt', () => {
  const robots = parseRobots(
    [
      'User-agent: *',
      'Disallow: /private/',
      'Allow: /private/open$',
      'Disallow: /*.json$',
      'Crawl-delay: 2',
      '',
      'User-agent: OtherBot',
      'Disallow: /',
      'Sitemap: https://example.com/sitemap.xml',
    ].join('\n'),
  );

  it('applies the longest match, Allow on ties, * and $ patterns', () => {
    expect(robots.allowed('https://example.com/')).toBe(true);
    expect(robots.allowed('https://example.com/private/x')).toBe(false);
    expect(robots.allowed('https://example.com/private/open')).toBe(true);
    expect(robots.allowed('https://example.com/private/open/more')).toBe(false);
    expect(robots.allowed('https://example.com/data/file.json')).toBe(false);
    expect(robots.allowed('https://example.com/data/file.json?x=1')).toBe(true);
    expect(robots.sitemaps).toEqual(['https://example.com/sitemap.xml']);
    expect(robots.crawlDelayMs).toBe(2000);
  });

  it('uses the group that names Gleaner over *', () => {
    const own = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: Gleaner\nDisallow: /admin');
    expect(own.allowed('https://example.com/page')).toBe(true);
    expect(own.allowed('https://example.com/admin/x')).toBe(false);
  });
});

describe('sitemaps', () => {
  it('reads url sets, indexes, gzip and text sitemaps', () => {
    const set = '<?xml version="1.0"?><urlset><url><loc>https://example.com/a?x=1&amp;y=2</loc></url><url><loc><![CDATA[https://example.com/b]]></loc></url></urlset>';
    expect(parseSitemap(Buffer.from(set))).toEqual({ kind: 'urlset', locations: ['https://example.com/a?x=1&y=2', 'https://example.com/b'] });
    const index = '<sitemapindex><sitemap><loc>https://example.com/s1.xml.gz</loc></sitemap></sitemapindex>';
    expect(parseSitemap(zlib.gzipSync(index))).toEqual({ kind: 'index', locations: ['https://example.com/s1.xml.gz'] });
    expect(parseSitemap(Buffer.from('https://example.com/x\nnot a url\nhttps://example.com/y\n')).locations).toEqual(['https://example.com/x', 'https://example.com/y']);
  });
});

describe('linkedom as installed (patches/linkedom+0.18.15.patch)', () => {
  // The patch spares every parsed node a listener map of its own (a fifth of a page's conversion).
  const installed = (build: 'esm' | 'cjs', file = 'interface/event-target.js') =>
    fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('linkedom')), '..', build, ...file.split('/')), 'utf8');
  const hint = (build: string) => `${build} build: run npm install (its postinstall applies patches/)`;

  it('gives a node its listener map when a listener is added, not when the node is made (both builds)', () => {
    for (const build of ['esm', 'cjs'] as const) {
      const constructor = /constructor\(\) \{([^}]*)\}/.exec(installed(build))?.[1];
      expect(constructor, `${build} build`).toBeDefined();
      expect(constructor!.trim(), `${build} build: run npm install (its postinstall applies patches/)`).toBe('');
    }
  });

  // It spares css-select's tag tests a new lower-case string per element and per tag of a selector (shared/matches.js).
  it('takes an HTML tag name already in lower case as it is in selector tests (both builds)', () => {
    for (const build of ['esm', 'cjs'] as const) expect(installed(build, 'shared/matches.js'), hint(build)).toContain('lowerCase(localName)');
  });

  it('still matches and names elements whatever the case of the selector or the name', () => {
    const doc = parseDocument('<div><h2>one</h2><x-Ab>two</x-Ab><svg><foreignObject><p>three</p></foreignObject></svg></div>');
    expect(doc.querySelectorAll('H2, x-ab, foreignobject, P').length).toBe(4);
    expect([...doc.querySelectorAll('div *')].map((element) => element.tagName)).toEqual(['H2', 'X-AB', 'SVG', 'FOREIGNOBJECT', 'P']);
    const made = (doc as unknown as { createElement(name: string): { tagName: string } }).createElement('Ünknown-Tag');
    expect(made.tagName).toBe('ÜNKNOWN-TAG');
  });

  // And tagName and nodeName a new upper-case string per call, for the HTML element names (shared/utils.js).
  it('looks up the upper case of the HTML element names for tagName (both builds)', () => {
    for (const build of ['esm', 'cjs'] as const) expect(installed(build, 'shared/utils.js'), hint(build)).toContain('upperNames.get(localName)');
  });

  // And a class list's value (className, getAttribute('class')) an array per read (dom/token-list.js).
  it("joins a class list's value without an array (both builds)", () => {
    for (const build of ['esm', 'cjs'] as const) expect(installed(build, 'dom/token-list.js'), hint(build)).toContain("value += ' ' + text");
  });

  it('still gives a class list and the class attribute as before', () => {
    const div = parseDocument('<div class="a  b a">one</div>').querySelector('div')!;
    expect(div.getAttribute('class')).toBe('a b');
    const classList = (div as unknown as { classList: { add(...tokens: unknown[]): void; value: string } }).classList;
    classList.add('c', 5);
    expect([classList.value, div.getAttribute('class')]).toEqual(['a b c 5', 'a b c 5']);
  });

  it('still delivers events to the listeners added, and not after they are removed', () => {
    const doc = parseDocument('<div><p>one</p></div>');
    // The nodes as the EventTargets they are (the project's DOM types list only what extraction reads).
    const [body, p] = [doc.body, doc.querySelector('p')] as unknown as EventTarget[];
    const heard: string[] = [];
    const listener = (event: { type: string }) => heard.push(event.type);
    // A node that never had a listener: removing one is a no-op, dispatching reaches no one.
    body.removeEventListener('ping', listener);
    expect(body.dispatchEvent(new Event('ping') as never)).toBe(true);
    p.addEventListener('ping', listener);
    p.dispatchEvent(new Event('ping') as never);
    p.removeEventListener('ping', listener);
    p.dispatchEvent(new Event('ping') as never);
    expect(heard).toEqual(['ping']);
  });
});
