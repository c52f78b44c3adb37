/**
 * Map: the URLs of a site. Sitemaps first (robots.txt Sitemap lines, else /sitemap.xml and
 * /sitemap_index.xml; indexes and gzip followed), then link discovery from the site's pages,
 * breadth-first, until the limit. Same site only, normalised, each URL once, robots.txt obeyed.
 * Path patterns (scope.ts) filter what is listed; a search term orders what was found by relevance.
 */
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { loadPage, NEVER_RENDER, type RenderChoice } from './render/load.js';
import { Renderer } from './render/browser-pool.js';
import { pageLinks } from './links.js';
import { readSitemaps } from './sitemap.js';
import { Site } from './site.js';
import { looksLikePage } from './urls.js';
import { drainQueue } from './pool.js';
import { Scope, type ScopeOptions } from './scope.js';
import { byRelevance } from './relevance.js';

export interface MapOptions {
  limit: number;
  signal?: AbortSignal;
  /** Pages fetched at once during link discovery. */
  concurrency?: number;
  /** Link discovery stops after this long, returning what it has. */
  discoveryBudgetMs?: number;
  /** Whether and how pages read for links are rendered in a browser (default never). */
  render?: RenderChoice;
  /** Preferred language of the pages (sent as Accept-Language while discovering links). */
  lang?: string;
  /** Orders the URLs by relevance to this term (most relevant first). */
  search?: string;
  /** Path patterns the listed URLs keep to (hosts stay the site's own on a map). */
  scope?: Pick<ScopeOptions, 'includePaths' | 'excludePaths'>;
}

export interface MapResult {
  urls: string[];
  /** Pages whose links were read from the rendered DOM (each costs the render price). */
  renderedPages: number;
  warnings?: string[];
}

/** Pages one map renders at most; past this, pages are read plainly (a warning says so). */
export const MAP_MAX_RENDERS = 25;
/** URLs a map with a search term collects before ordering them (the most a map may list), so a small limit still gets the best matches. */
export const MAP_SEARCH_POOL = 500;

export async function mapSite(http: HttpClient, url: string, options: MapOptions): Promise<MapResult> {
  const site = new Site(http, url, options.signal);
  const collect = options.search ? Math.max(options.limit, MAP_SEARCH_POOL) : options.limit;
  const robots = await site.robotsFor(site.start);
  const found = new Set<string>();
  const warnings = new Set<string>();
  let rendered = 0;
  let renderSlots = MAP_MAX_RENDERS;
  const scope = new Scope(site.name, options.scope);
  const reply = (): MapResult => ({
    urls: (options.search ? byRelevance([...found], options.search) : [...found]).slice(0, options.limit),
    renderedPages: rendered,
    ...(warnings.size ? { warnings: [...warnings].slice(0, 10) } : {}),
  });
  const accept = async (candidate: string) => {
    const own = site.own(candidate);
    return own && scope.pathWanted(own) && (await site.allowed(own)) ? own : null;
  };

  const fromSitemaps = await readSitemaps(http, await site.sitemapLocations(), { limit: collect, accept, signal: options.signal });
  for (const entry of fromSitemaps) found.add(entry);
  if (found.size >= collect) return reply();

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
      const choice = render;
      // A render is paid for when it happens; past the map's share of renders, pages are read plainly.
      const budgeted: RenderChoice = {
        ...choice,
        pay: async () => {
          if (renderSlots <= 0) return false;
          renderSlots--;
          await choice.pay?.();
          return true;
        },
      };
      const page = await loadPage(http, next, budgeted, { signal: options.signal, lang: options.lang });
      if (page.rendered) rendered++;
      for (const warning of page.warnings) warnings.add(warning);
      const final = site.own(page.url);
      if (!final) return;
      if (scope.pathWanted(final) && (await site.allowed(final))) found.add(final);
      fetched.add(final);
      if (page.kind !== 'html') return;
      for (const link of pageLinks(page.text, page.url)) {
        const own = site.own(link);
        if (!own || !(await site.allowed(own))) continue;
        if (found.size < collect && scope.pathWanted(own)) found.add(own);
        if (!fetched.has(own)) queue.push(own);
      }
    } catch (error) {
      if (next === site.start) startFailure = error;
    }
  };
  // Pages fetched are bounded by the limit too: each fetch should be able to add at least one URL.
  const more = () => found.size < collect && fetched.size < collect && Date.now() < deadline && !options.signal?.aborted;
  // The map's pages render in one browser context of its own, its tabs reused from page to page.
  let render: RenderChoice = options.render ?? NEVER_RENDER;
  const session = render.renderer instanceof Renderer ? render.renderer.session({ lang: options.lang, owner: render.owner }) : undefined;
  if (session) render = { ...render, renderer: session };
  try {
    await drainQueue(queue, options.concurrency ?? 6, visit, more);
  } finally {
    await session?.close();
  }
  if (!found.size && startFailure) throw startFailure;
  return reply();
}
