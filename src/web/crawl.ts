/**
 * Crawl: scrape up to maxPages pages of one site. `sitemap` mode scrapes what the sitemaps list
 * (falling back to link discovery when the site has none); `recursive` mode follows links
 * breadth-first from the start URL. Obeys robots.txt (rules and Crawl-delay), stays on the site
 * (unless subdomains or external hosts are allowed, each host with its own robots.txt), keeps to the
 * path patterns and link depth asked (see scope.ts), 
 * never fetches a URL twice (redirects are followed here, not in the client, to know every URL
 * fetched), and runs pages concurrently within the client's per-host politeness limit.
 *
 * Result: { url, mode, pages: [scrape reply without `urls`], failed: [{ url, error: { code, message } }],
 *           stats: { pages, failed, durationMs } }
 */
import Bottleneck from 'bottleneck';
import type { HttpClient } from '../net/http.js';
import { GleanerError, toGleanerError, type ErrorCode } from '../errors.js';
import type { ContentFormat } from './extract.js';
import { RedirectSignal } from './fetch-page.js';
import { loadPage, NEVER_RENDER, type RenderChoice } from './render/load.js';
import { Renderer } from './render/browser-pool.js';
import { scrapeFetched, type ScrapeResult } from './scrape.js';
import type { DocumentSettings } from './document-pool.js';
import { warmExtractPool } from './extract-pool.js';
import { readSitemaps } from './sitemap.js';
import { Site } from './site.js';
import { Scope, type ScopeOptions } from './scope.js';
import { looksLikeDocument, looksLikePage } from './urls.js';
import { drainQueue } from './pool.js';

export type CrawlMode = 'sitemap' | 'recursive';

export interface CrawlOptions {
  mode: CrawlMode;
  maxPages: number;
  format: ContentFormat;
  onlyMainContent?: boolean;
  /** Pages fetched at once; the client's per-host limit applies on top. */
  concurrency?: number;
  /** Stops the crawl: pages in flight are dropped and the pages scraped so far are returned, with `stopped`. */
  signal?: AbortSignal;
  progress?: (done: number, total?: number) => void;
  /** PDF and Word links are pages too, read within these limits. */
  documents?: DocumentSettings;
  /** Whether and how pages are rendered in a browser (default never); each page decides under `auto`. */
  render?: RenderChoice;
  /** Path patterns and hosts the crawl keeps to. */
  scope?: ScopeOptions;
  /** Link depth followed from the start URL (0: the start page alone); unbounded when absent. */
  maxDepth?: number;
  /**
   * Turns each kept page into what the result holds (a model's answer about it, see
   * operations/page-answers.ts); a page it fails is listed in `failed`. Its links are followed either way.
   */
  finish?: (page: CrawledPage) => Promise<CrawledPage>;
}

export type CrawledPage = Omit<ScrapeResult, 'urls'>;

export interface CrawlResult {
  url: string;
  /** The mode that ran: `sitemap` falls back to `recursive` on a site without sitemaps. */
  mode: CrawlMode;
  pages: CrawledPage[];
  failed: Array<{ url: string; error: { code: ErrorCode; message: string } }>;
  stats: { pages: number; failed: number; durationMs: number };
  /** Set when the crawl was stopped (cancelled) before it finished: `pages` is what was scraped until then. */
  stopped?: true;
}

/** Redirect hops followed for one page. */
const MAX_REDIRECTS = 5;
/** Longest Crawl-delay honoured; a site asking for more gets this. */
const MAX_CRAWL_DELAY_MS = 10_000;

export async function crawlSite(http: HttpClient, url: string, options: CrawlOptions): Promise<CrawlResult> {
  const started = Date.now();
  warmExtractPool();
  const site = new Site(http, url, options.signal);
  const robots = await site.robotsFor(site.start);
  if (robots.unreachable) {
    throw new GleanerError('UPSTREAM_UNAVAILABLE', `${new URL(site.start).host} did not serve its robots.txt (server error or unreachable), so it may not be crawled now; try again later.`);
  }
  // Crawl-delay spaces this crawl's requests; the client's per-host limit bounds them as well.
  const spacing = robots.crawlDelayMs ? new Bottleneck({ maxConcurrent: 1, minTime: Math.min(robots.crawlDelayMs, MAX_CRAWL_DELAY_MS) }) : undefined;
  let render: RenderChoice = options.render ?? NEVER_RENDER;
  const get = (target: string) => {
    const run = () => loadPage(http, target, render, { signal: options.signal, manualRedirects: true, documentMaxBytes: options.documents?.maxBytes });
    return spacing ? spacing.schedule(run) : run();
  };

  let mode = options.mode;
  const scope = new Scope(site.name, options.scope);
  /** A URL to fetch: in scope by host and path, a page or document, allowed by its host's robots.txt. */
  const accept = async (candidate: string) => {
    const own = scope.own(candidate);
    return own && scope.pathWanted(own) && (looksLikePage(own) || looksLikeDocument(own)) && (await allowedHere(own)) ? own : null;
  };
  // Another host's robots.txt throws when the SSRF guard refuses that host: such a link is skipped,
  // not a failure of the page that holds it.
  const allowedHere = (target: string) => site.allowed(target).catch((error: unknown) => {
    if (error instanceof GleanerError && error.code === 'URL_NOT_ALLOWED') return false;
    throw error;
  });
  let queue: string[] = [];
  if (mode === 'sitemap') {
    // A few spare URLs in case some pages fail or redirect to pages already scraped.
    queue = await readSitemaps(http, await site.sitemapLocations(), { limit: options.maxPages * 2, accept, signal: options.signal });
    if (queue.length === 0) mode = 'recursive';
  }
  if (mode === 'recursive') queue = [site.start];

  const seen = new Set<string>(queue);
  /** Link depth of each queued URL (sitemap URLs count as depth 0). */
  const depth = new Map<string, number>(queue.map((item) => [item, 0]));
  // The start page is read for its links even when the path filters leave it out; it is kept as a page only if they take it.
  const keep = (pageUrl: string) => pageUrl !== site.start || scope.pathWanted(pageUrl);
  const pages: CrawledPage[] = [];
  const failed: CrawlResult['failed'] = [];
  /** Every URL requested, so a redirect never leads to a page fetched before. */
  const requested = new Set<string>();
  const maxAttempts = options.maxPages * 3;
  const total = () => (mode === 'sitemap' ? Math.min(options.maxPages, queue.length + pages.length + failed.length) : options.maxPages);

  const visit = async (pageUrl: string, release: () => void) => {
    if (requested.has(pageUrl) || !(await site.allowed(pageUrl))) return;
    let current = pageUrl;
    try {
      for (let hop = 0; ; hop++) {
        requested.add(current);
        const outcome = await get(current);
        if (!(outcome instanceof RedirectSignal)) {
          // Fetched: the next page may be fetched while this one is extracted.
          release();
          const page = await scrapeFetched(outcome, { format: options.format, onlyMainContent: options.onlyMainContent ?? true, signal: options.signal, documents: options.documents });
          if (pages.length >= options.maxPages) return;
          const { urls, ...rest } = page;
          const below = (depth.get(pageUrl) ?? 0) + 1;
          if (mode === 'recursive' && below <= (options.maxDepth ?? Infinity)) {
            for (const link of urls) {
              const own = await accept(link);
              if (own && !seen.has(own)) {
                seen.add(own);
                depth.set(own, below);
                queue.push(own);
              }
            }
          }
          if (keep(pageUrl)) {
            // Links first: a page whose answer fails still leads to the pages it links to.
            const kept = options.finish ? await options.finish(rest) : rest;
            if (pages.length >= options.maxPages) return;
            pages.push(kept);
          }
          options.progress?.(pages.length, total());
          return;
        }
        const next = scope.own(outcome.to);
        if (!next) throw new GleanerError('UPSTREAM_ERROR', `${current} redirects off the site (to ${outcome.to}); not followed.`);
        if (!scope.pathWanted(next) && pageUrl !== site.start) return; // redirected out of the paths asked
        if (requested.has(next)) return; // already fetched (or being fetched) under its own URL
        if (!(await site.allowed(next))) return;
        if (hop >= MAX_REDIRECTS) throw new GleanerError('UPSTREAM_ERROR', `Too many redirects from ${pageUrl}.`);
        seen.add(next);
        current = next;
      }
    } catch (error) {
      // Stopped: a page cut off mid-way is neither scraped nor failed.
      if (options.signal?.aborted) return;
      const failure = toGleanerError(error);
      failed.push({ url: current, error: { code: failure.code, message: failure.message } });
    }
  };

  let attempts = 0;
  // The crawl's pages render in one browser context of its own, its tabs reused from page to page.
  const session = render.renderer instanceof Renderer ? render.renderer.session({ owner: render.owner }) : undefined;
  if (session) render = { ...render, renderer: session };
  try {
    await drainQueue(
      queue,
      options.concurrency ?? 8,
      (item, release) => {
        attempts++;
        return visit(item, release);
      },
      (running) => pages.length + running < options.maxPages && attempts < maxAttempts && !options.signal?.aborted,
    );
  } finally {
    await session?.close();
  }
  await spacing?.stop({ dropWaitingJobs: true }).catch(() => undefined);
  const stats = { pages: pages.length, failed: failed.length, durationMs: Date.now() - started };
  if (options.signal?.aborted) return { url: site.start, mode, pages, failed, stats, stopped: true };
  options.progress?.(pages.length, pages.length);
  return { url: site.start, mode, pages, failed, stats };
}
