/**
 * What a social platform adapter gives the operations: the unified metadata, the captions the
 * platform publishes, and where the media is (for speech to text when there are no captions).
 */
import * as cheerio from 'cheerio';
import type { HttpClient, FetchResponse } from '../net/http.js';
import { GleanerError } from '../errors.js';
import type { Metadata } from './types.js';

export interface CaptionTrack {
  /** ISO 639-1 code, with region where the platform gives one; "und" when it does not say. */
  lang: string;
  url: string;
  /** asr: the platform's own speech recognition; translation: machine-translated from another language. */
  kind: 'manual' | 'asr' | 'translation';
}

export interface PostMedia {
  url: string;
  /** Headers the media host expects (Referer, the cookies the page set). */
  headers?: Record<string, string>;
  durationSeconds?: number;
}

export interface PlatformPost {
  metadata: Metadata;
  captions: CaptionTrack[];
  /** Absent when the post has no video or audio (a photo, a text post). */
  media?: PostMedia;
}

export interface PlatformAdapter {
  platform: 'tiktok' | 'instagram' | 'x' | 'facebook';
  /** A readable name for messages. */
  label: string;
  matches(url: URL): boolean;
  load(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost>;
}

/** Platforms serve logged-out pages to browsers; a bot user agent gets a login wall or nothing. */
export const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const MOBILE_UA = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

export function hostIs(url: URL, ...domains: string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** A page or API reply, with the platform's status codes turned into errors a caller can act on. */
export async function fetchOk(http: HttpClient, url: string, label: string, options: Parameters<HttpClient['fetch']>[1] = {}): Promise<FetchResponse> {
  const reply = await http.fetch(url, { maxBytes: 8 * 1024 * 1024, ...options });
  if (reply.status === 404 || reply.status === 410) throw new GleanerError('CONTENT_NOT_FOUND', `${label} says this post does not exist (HTTP ${reply.status}).`);
  if (reply.status === 401 || reply.status === 403) {
    throw new GleanerError('CONTENT_UNAVAILABLE', `${label} refused to show this post (HTTP ${reply.status}); it may be private, removed or blocked in this server's region.`);
  }
  if (reply.status === 429) throw new GleanerError('UPSTREAM_UNAVAILABLE', `${label} is limiting requests from this server (HTTP 429); try again later or set GLEANER_PROXY_URL.`);
  if (reply.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `${label} answered HTTP ${reply.status}.`);
  return reply;
}

/** <meta property|name=...> contents, entities decoded (first occurrence wins). */
export function metaTags($: cheerio.CheerioAPI): Map<string, string> {
  const tags = new Map<string, string>();
  $('meta').each((_, element) => {
    const key = $(element).attr('property') ?? $(element).attr('name');
    const content = $(element).attr('content');
    if (key && content !== undefined && !tags.has(key.toLowerCase())) tags.set(key.toLowerCase(), content);
  });
  return tags;
}

/** Every JSON-LD object on the page (arrays and @graph flattened); broken blocks skipped. */
export function jsonLd($: cheerio.CheerioAPI): Array<Record<string, any>> {
  const found: Array<Record<string, any>> = [];
  $('script[type="application/ld+json"]').each((_, element) => {
    try {
      const value = JSON.parse($(element).text());
      const items = Array.isArray(value) ? value : value?.['@graph'] ? value['@graph'] : [value];
      for (const item of items) if (item && typeof item === 'object') found.push(item);
    } catch {
      /* not JSON: skip */
    }
  });
  return found;
}

/** The name=value pairs of the Set-Cookie headers, as one Cookie header. */
export function cookieHeader(setCookie: string | undefined): string | undefined {
  if (!setCookie) return undefined;
  // The client joins several Set-Cookie headers with ", "; Expires dates also hold commas.
  const pairs = setCookie
    .split(/,(?=\s*[A-Za-z0-9_.-]+=)/)
    .map((part) => part.split(';')[0].trim())
    .filter((pair) => /^[^=\s]+=/.test(pair));
  return pairs.length ? pairs.join('; ') : undefined;
}

/** "990K" -> 990000, "8,873" -> 8873, "1.2M" -> 1200000. */
export function compactNumber(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const match = /^([\d.,]+)\s*([KMB])?$/i.exec(text.trim());
  if (!match) return undefined;
  const scale = { K: 1e3, M: 1e6, B: 1e9 }[match[2]?.toUpperCase() as 'K' | 'M' | 'B'] ?? 1;
  const digits = scale === 1 ? match[1].replace(/[.,]/g, '') : match[1].replace(/,/g, '');
  const value = Number(digits) * scale;
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

export function hashtags(text: string | null | undefined): string[] {
  return [...new Set([...(text ?? '').matchAll(/(?:^|\s)#([\p{L}\p{N}_]+)/gu)].map((m) => m[1]))];
}

/** Drops keys whose value is undefined (the reply schema leaves unknown counts out). */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && !(typeof v === 'number' && !Number.isFinite(v)))) as Partial<T>;
}
