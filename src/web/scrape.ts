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
 *     rendered: boolean       // true when a browser ran the page's scripts first (see render/load.ts)
 *     warnings?: string[]     // how the page was read, when the caller should know (not rendered, requests refused, a converter fell back)
 *   }
 *
 * A page answer (format summary, answer or json, see docs/page-answers.md) replaces `content` with
 * the model's answer and adds `model` (and `data`, the JSON value, for json).
 *
 * Non-HTML text (plain text, JSON, XML...) comes back as is, with no title or links. PDF and Word
 * documents are read on the document threads (document-pool.ts) and come back like pages: their
 * text in the format asked for (a PDF's pages apart), their links, and their properties in
 * `metadata` (see docs/documents.md).
 */
import type { HttpClient } from '../net/http.js';
import type { Metadata } from '../model/content.js';
import type { ContentFormat, ExtractedPage, ExtractOptions } from './extract.js';
import { extractOffThread } from './extract-pool.js';
import type { FetchedPage } from './fetch-page.js';
import { readDocumentOffThread, type DocumentSettings } from './document-pool.js';
import { loadPage, NEVER_RENDER, type LoadedPage, type RenderChoice } from './render/load.js';
import type { Screenshot } from './render/screenshot.js';

export interface ScrapeOptions {
  format: ContentFormat;
  onlyMainContent: boolean;
  /** No link or image URLs in the content (Supadata's noLinks). */
  noLinks?: boolean;
  /** Preferred language of the page (sent as Accept-Language). */
  lang?: string;
  signal?: AbortSignal;
  documents?: DocumentSettings;
  /** Whether and how to render the page in a browser (default never). */
  render?: RenderChoice;
}

/** What `content` holds: the page in one of its forms, or a model's answer about it. */
export type PageFormat = ContentFormat | 'summary' | 'answer' | 'json';

export interface ScrapeResult {
  url: string;
  title: string | null;
  name: string | null;
  description: string | null;
  ogUrl: string | null;
  content: string;
  format: PageFormat;
  countCharacters: number;
  urls: string[];
  language: string | null;
  statusCode: number;
  contentType: string;
  metadata: Metadata;
  rendered: boolean;
  /** How the page was read, when the caller should know (not rendered, requests refused, a converter fell back). */
  warnings?: string[];
  /** format json: the model's answer as a JSON value. */
  data?: unknown;
  /** A page answer: the model that gave it. */
  model?: string;
}

/**
 * Turns an already fetched page into the scrape reply (the crawler fetches on its own). HTML is
 * extracted on the extraction threads (extract-pool.ts): a large page costs tens to hundreds of
 * milliseconds of Readability and markdown, which on the event loop would hold up every other call.
 */
export async function scrapeFetched(page: FetchedPage | LoadedPage, options: Omit<ScrapeOptions, 'render' | 'lang'>): Promise<ScrapeResult> {
  if (page.document) {
    const task = { type: page.document.type, bytes: page.document.bytes, url: page.url, want: options.format };
    return assemble(page, options.format, await readDocumentOffThread(task, { ...options.documents, signal: options.signal }));
  }
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
      ...howRead(page),
    };
  }
  return assemble(page, options.format, await extractOffThread(page.text, extractOptions(page, options)));
}

/** `rendered`, and `warnings` (the loader's and the converter's) when there are any. */
function howRead(page: FetchedPage | LoadedPage, extracted?: ExtractedPage): { rendered: boolean; warnings?: string[] } {
  const rendered = 'rendered' in page && page.rendered;
  const warnings = [...('warnings' in page ? page.warnings : []), ...(extracted?.warnings ?? [])];
  return warnings.length ? { rendered, warnings } : { rendered };
}

function extractOptions(page: FetchedPage, options: Omit<ScrapeOptions, 'render' | 'lang'>): ExtractOptions {
  return { url: page.url, format: options.format, onlyMainContent: options.onlyMainContent, noLinks: options.noLinks, contentLanguage: page.headers['content-language'] };
}

function assemble(page: FetchedPage | LoadedPage, format: ContentFormat, extracted: ExtractedPage): ScrapeResult {
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
    ...howRead(page, extracted),
  };
}

/** A scrape, with the screenshot its render choice asked for (the PNG; the operation keeps it and replies with its URL). */
export async function scrape(http: HttpClient, url: string, options: ScrapeOptions): Promise<ScrapeResult & { screenshot?: Screenshot }> {
  const page = await loadPage(http, url, options.render ?? NEVER_RENDER, { signal: options.signal, lang: options.lang, documentMaxBytes: options.documents?.maxBytes });
  const result = await scrapeFetched(page, { format: options.format, onlyMainContent: options.onlyMainContent, noLinks: options.noLinks, signal: options.signal, documents: options.documents });
  return page.screenshot ? { ...result, screenshot: page.screenshot } : result;
}
