/**
 * Map: the URLs of a site. Sitemaps first (robots.txt Sitemap lines, else /sitemap.xml and
 * /sitemap_index.xml; indexes and gzip followed), then link discovery from the site's pages,
 * breadth-first, until the limit. Same site only, normalised, each URL once, robots.txt obeyed.
 */
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { fetchPage } from './fetch-page.js';
import { pageLinks } from './links.js';
import { readSitemaps } from './sitemap.js';
import { Site } from './site.js';
import { looksLikePage } from './urls.js';
import { drainQueue } from './pool.js';

export interface MapOptions {
  limit: number;
  signal?: AbortSignal;
  /** Pages fetched at once during link discovery. */
  concurrency?: number;
  /** Link discovery stops after this long, returning what it has. */
  discoveryBudgetMs?: number;
  /** Preferred language of the pages (sent as Accept-Language while discovering links). */
  lang?: string;
}

export async function mapSite(http: HttpClient, url: string, options: MapOptions): Promise<{ urls: string[] }> {
  const site = new Site(http, url, options.signal);
  const robots = await site.robotsFor(site.start);
  const found = new Set<string>();
  const accept = async (candidate: string) => {
    const own = site.own(candidate);
    return own && (await site.allowed(own)) ? own : null;
  };

  const fromSitemaps = await readSitemaps(http, await site.sitemapLocations(), { limit: options.limit, accept, signal: options.signal });
  for (const entry of fromSitemaps) found.add(entry);
  if (found.size >= options.limit) return { urls: [...found].slice(0, options.limit) };

  // Link discovery: fetch pages of the site (the start page first, then what the sitemaps and the
  // pages themselves list) and collect their same-site links.
  if (robots.unreachable && !found.size) {
    throw new GleanerError('UPSTREAM_UNAVAILABLE', `${new URL(site.start).host} could not be reached (its robots.txt failed to load).`);
  }
  const deadline = Date.now() + (options.discoveryBudgetMs ?? 60_000);
  const queue: string[] = [site.start, ...found];
  const fetched = new Set<string>();
  let startFailure: unknown;
  const visit = async (next: string) => {
    if (fetched.has(next) || !looksLikePage(next) || !(await site.allowed(next))) return;
    fetched.add(next);
    try {
      const page = await fetchPage(http, next, { signal: options.signal, lang: options.lang });
      const final = site.own(page.url);
      if (!final) return;
      if (await site.allowed(final)) found.add(final);
      fetched.add(final);
      if (page.kind !== 'html') return;
      for (const link of pageLinks(page.text, page.url)) {
        const own = site.own(link);
        if (!own || !(await site.allowed(own))) continue;
        if (found.size < options.limit) found.add(own);
        if (!fetched.has(own)) queue.push(own);
      }
    } catch (error) {
      if (next === site.start) startFailure = error;
    }
  };
  // Pages fetched are bounded by the limit too: each fetch should be able to add at least one URL.
  const more = () => found.size < options.limit && fetched.size < options.limit && Date.now() < deadline && !options.signal?.aborted;
  await drainQueue(queue, options.concurrency ?? 6, visit, more);
  if (!found.size && startFailure) throw startFailure;
  return { urls: [...found].slice(0, options.limit) };
}
