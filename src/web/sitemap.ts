/**
 * Sitemaps: XML url sets and sitemap indexes (followed breadth-first), gzipped files, and plain
 * text sitemaps (one URL a line). A sitemap that cannot be read is skipped, not fatal.
 */
import zlib from 'node:zlib';
import type { HttpClient } from '../net/http.js';

/** More sitemap files than this are not read for one request (some sites have thousands). */
const MAX_FILES = 50;
/** The sitemap protocol's own size limit for one file, uncompressed. */
const MAX_BYTES = 50 * 1024 * 1024;

function decodeXml(value: string): string {
  return value
    .replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, '')
    .replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_m, entity: string) => {
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (entity[0] !== '#') return named[entity.toLowerCase()];
      return String.fromCodePoint(entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
    })
    .trim();
}

export interface ParsedSitemap {
  kind: 'index' | 'urlset';
  locations: string[];
}

export function parseSitemap(body: Buffer): ParsedSitemap {
  const raw = body[0] === 0x1f && body[1] === 0x8b ? zlib.gunzipSync(body, { maxOutputLength: MAX_BYTES }) : body;
  const text = raw.toString('utf8');
  if (/<sitemapindex[\s>]/i.test(text)) {
    const locations = [...text.matchAll(/<sitemap[\s>][\s\S]*?<loc[^>]*>([\s\S]*?)<\/loc>/gi)].map((m) => decodeXml(m[1]));
    return { kind: 'index', locations };
  }
  if (/<urlset[\s>]/i.test(text) || /<url[\s>]/i.test(text)) {
    const locations = [...text.matchAll(/<url[\s>][\s\S]*?<loc[^>]*>([\s\S]*?)<\/loc>/gi)].map((m) => decodeXml(m[1]));
    return { kind: 'urlset', locations };
  }
  if (/^\s*</.test(text)) return { kind: 'urlset', locations: [] };
  const locations = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => /^https?:\/\//i.test(line));
  return { kind: 'urlset', locations };
}

export interface SitemapReadOptions {
  /** Stop once this many page URLs have been accepted. */
  limit: number;
  /** Decides which page URLs to keep (same site, allowed by robots.txt...) and normalises them. */
  accept: (url: string) => Promise<string | null> | string | null;
  signal?: AbortSignal;
}

/** Page URLs from the sitemaps at `starts` (and the indexes they lead to), in order, each once. */
export async function readSitemaps(http: HttpClient, starts: string[], options: SitemapReadOptions): Promise<string[]> {
  const urls = new Set<string>();
  const queue = [...new Set(starts)];
  const visited = new Set<string>();
  while (queue.length && visited.size < MAX_FILES && urls.size < options.limit) {
    const file = queue.shift()!;
    if (visited.has(file)) continue;
    visited.add(file);
    let parsed: ParsedSitemap;
    try {
      const response = await http.fetch(file, { signal: options.signal, maxBytes: MAX_BYTES });
      if (response.status < 200 || response.status >= 300) continue;
      parsed = parseSitemap(response.body);
    } catch (error) {
      // A sitemap that fails (or that the guard refuses) only loses its own URLs.
      if (options.signal?.aborted) throw error;
      continue;
    }
    if (parsed.kind === 'index') {
      for (const location of parsed.locations) if (!visited.has(location)) queue.push(location);
      continue;
    }
    for (const location of parsed.locations) {
      const accepted = await options.accept(location);
      if (accepted) urls.add(accepted);
      if (urls.size >= options.limit) break;
    }
  }
  return [...urls];
}
