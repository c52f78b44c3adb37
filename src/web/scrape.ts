/**
 * Scrape: one URL to its text. The reply (field names follow the Supadata SDK, see
 * shared reply-shapes; `title`, `format` and `metadata` are additions):
 *
 *   {
 *     url: string             // the URL finally answered (after redirects)
 *     title: string | null    // the page title (article title when main content is extracted)
 *     name: string | null     // the same title, under the SDK's name
 *     description: string | null
 *     ogUrl: string | null    // canonical URL (link rel=canonical, else og:url)
 *     content: string         // markdown, text or html, per `format`
 *     format: 'markdown' | 'text' | 'html'
 *     countCharacters: number // length of content
 *     urls: string[]          // links on the page: absolute, no fragments, each once
 *     language: string | null
 *     statusCode: number
 *     contentType: string
 *     metadata: Metadata      // the unified web metadata (platform "web"), as /v1/metadata gives it
 *     warnings?: string[]     // only when a converter failed on the page and a fallback answered
 *   }
 *
 * Non-HTML text (plain text, JSON, XML...) comes back as is, with no title or links.
 */
import type { HttpClient } from '../net/http.js';
import type { Metadata } from '../platforms/types.js';
import type { ContentFormat, ExtractedPage, ExtractOptions } from './extract.js';
import { extractOffThread } from './extract-pool.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';

export interface ScrapeOptions {
  format: ContentFormat;
  onlyMainContent: boolean;
  /** No link or image URLs in the content (Supadata's noLinks). */
  noLinks?: boolean;
  /** Preferred language of the page (sent as Accept-Language). */
  lang?: string;
  signal?: AbortSignal;
}

export interface ScrapeResult {
  url: string;
  title: string | null;
  name: string | null;
  description: string | null;
  ogUrl: string | null;
  content: string;
  format: ContentFormat;
  countCharacters: number;
  urls: string[];
  language: string | null;
  statusCode: number;
  contentType: string;
  metadata: Metadata;
  /** Present when something went less well than it should have (a converter fell back). */
  warnings?: string[];
}

/**
 * Turns an already fetched page into the scrape reply (the crawler fetches on its own). HTML is
 * extracted on the extraction threads (extract-pool.ts): a large page costs tens to hundreds of
 * milliseconds of Readability and markdown, which on the event loop would hold up every other call.
 */
export async function scrapeFetched(page: FetchedPage, options: Omit<ScrapeOptions, 'signal' | 'lang'>): Promise<ScrapeResult> {
  if (page.kind === 'text') {
    const metadata: Metadata = { platform: 'web', url: page.url, id: page.url, title: null, description: null, author: null, thumbnails: [], tags: [] };
    return {
      url: page.url,
      title: null,
      name: null,
      description: null,
      ogUrl: null,
      content: page.text,
      format: options.format,
      countCharacters: page.text.length,
      urls: [],
      language: null,
      statusCode: page.status,
      contentType: page.contentType,
      metadata,
    };
  }
  return assemble(page, options.format, await extractOffThread(page.text, extractOptions(page, options)));
}

function extractOptions(page: FetchedPage, options: Omit<ScrapeOptions, 'signal' | 'lang'>): ExtractOptions {
  return { url: page.url, format: options.format, onlyMainContent: options.onlyMainContent, noLinks: options.noLinks, contentLanguage: page.headers['content-language'] };
}

function assemble(page: FetchedPage, format: ContentFormat, extracted: ExtractedPage): ScrapeResult {
  return {
    url: page.url,
    title: extracted.title,
    name: extracted.title,
    description: extracted.metadata.description,
    ogUrl: extracted.metadata.canonicalUrl ?? null,
    content: extracted.content,
    format,
    countCharacters: extracted.content.length,
    urls: extracted.links,
    language: extracted.metadata.language ?? null,
    statusCode: page.status,
    contentType: page.contentType,
    metadata: extracted.metadata,
    ...(extracted.warnings.length ? { warnings: extracted.warnings } : {}),
  };
}

export async function scrape(http: HttpClient, url: string, options: ScrapeOptions): Promise<ScrapeResult> {
  const page = await fetchPage(http, url, { signal: options.signal, lang: options.lang });
  return scrapeFetched(page, { format: options.format, onlyMainContent: options.onlyMainContent, noLinks: options.noLinks });
}
