/**
 * What map and crawl share about one site: which URLs belong to it, robots.txt per origin (read
 * once), and where its sitemaps are.
 */
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { fetchRobots, type Robots } from './robots.js';
import { normalizeUrl, sameSite, siteOf } from './urls.js';

export class Site {
  readonly start: string;
  readonly name: string;
  private readonly robots = new Map<string, Promise<Robots>>();

  constructor(
    private readonly http: HttpClient,
    url: string,
    private readonly signal?: AbortSignal,
  ) {
    const start = normalizeUrl(url);
    if (!start) throw new GleanerError('INVALID_REQUEST', `url: "${url}" is not an http(s) URL.`);
    this.start = start;
    this.name = siteOf(start);
  }

  /** The normal form of a URL when it is on this site, else null. */
  own(url: string, base?: string): string | null {
    const normal = normalizeUrl(url, base);
    return normal && sameSite(normal, this.name) ? normal : null;
  }

  robotsFor(url: string): Promise<Robots> {
    const origin = new URL(url).origin;
    let robots = this.robots.get(origin);
    if (!robots) {
      robots = fetchRobots(this.http, origin, this.signal);
      this.robots.set(origin, robots);
    }
    return robots;
  }

  async allowed(url: string): Promise<boolean> {
    return (await this.robotsFor(url)).allowed(url);
  }

  /** Sitemaps named in robots.txt, else the conventional locations. */
  async sitemapLocations(): Promise<string[]> {
    const robots = await this.robotsFor(this.start);
    if (robots.sitemaps.length) return robots.sitemaps;
    const origin = new URL(this.start).origin;
    return [`${origin}/sitemap.xml`, `${origin}/sitemap_index.xml`];
  }
}
