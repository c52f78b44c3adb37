/**
 * Fetching platform pages the way a logged-out browser does: the platforms answer an unknown
 * client with a login wall or an empty shell, so the pages are asked for with a browser's headers.
 */
import type { FetchResponse, HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { profileOf } from './profile.js';

export type BrowserKind = 'desktop' | 'mobile';

/**
 * The headers of a top-level page navigation by the profile's browser: its user agent with the
 * client hints and Sec-Fetch-* metadata that belong to it (a Chrome UA without them, or a stale
 * one, is what the platforms' bot defences turn away first).
 */
export function pageHeaders(http: HttpClient, kind: BrowserKind = 'desktop'): Record<string, string> {
  const identity = profileOf(http).browsers[kind];
  return { ...identity.headers, 'user-agent': identity.userAgent };
}

/** The profile browser's user agent alone, for API and media requests (which are not navigations). */
export function userAgent(http: HttpClient, kind: BrowserKind = 'desktop'): string {
  return profileOf(http).browsers[kind].userAgent;
}

/** The language the page requests ask for, for API requests made on the page's behalf. */
export function acceptLanguage(http: HttpClient): string {
  return profileOf(http).browsers.desktop.headers['accept-language'] ?? 'en-US,en;q=0.9';
}

/** The post with the profile's desktop user agent on its media and caption requests (the adapters that read without a client set only the Referer). */
export function withUserAgent<T extends { media?: { headers?: Record<string, string> }; captionHeaders?: Record<string, string> }>(http: HttpClient, post: T): T {
  const agent = { 'user-agent': userAgent(http) };
  return {
    ...post,
    ...(post.media ? { media: { ...post.media, headers: { ...agent, ...post.media.headers } } } : {}),
    ...(post.captionHeaders ? { captionHeaders: { ...agent, ...post.captionHeaders } } : {}),
  };
}

/** GET a platform page or API; 404/410 is CONTENT_NOT_FOUND, 401/403/451 CONTENT_UNAVAILABLE, 429 UPSTREAM_BLOCKED, other errors UPSTREAM_ERROR. */
export async function fetchPlatform(
  http: HttpClient,
  url: string,
  what: string,
  options: { headers?: Record<string, string>; signal?: AbortSignal; method?: 'GET' | 'POST'; body?: string } = {},
): Promise<FetchResponse> {
  // The adapters' own requests to their platform: the operator's cookies for it may go along.
  const response = await http.fetch(url, { headers: options.headers ?? pageHeaders(http), signal: options.signal, method: options.method, body: options.body, credentials: true });
  if (response.status === 404 || response.status === 410) throw new GleanerError('CONTENT_NOT_FOUND', `${what} does not exist (${new URL(url).host} answered ${response.status}).`);
  if (response.status === 401 || response.status === 403 || response.status === 451) {
    throw new GleanerError('CONTENT_UNAVAILABLE', `${what} is not viewable without logging in, or not in this region (${new URL(url).host} answered ${response.status}).`);
  }
  // A 429 that outlasted the client's retries is the platform turning this server away.
  if (response.status === 429) {
    throw new GleanerError(
      'UPSTREAM_BLOCKED',
      `${new URL(url).host} keeps answering 429 (too many requests) for ${what.toLowerCase()}. Route the platform through a proxy (GLEANER_PROXY_URL or its GLEANER_PROXY_URL_<PLATFORM>), or try again later.`,
    );
  }
  if (response.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `${new URL(url).host} answered ${response.status} for ${what.toLowerCase()}.`);
  return response;
}

/** The name=value pairs of a reply's Set-Cookie headers, as one Cookie header (the client joins them with ", "). */
export function cookiesOf(response: FetchResponse): string | undefined {
  const raw = response.headers['set-cookie'];
  if (!raw) return undefined;
  const pairs = raw
    .split(/,(?=\s*[A-Za-z0-9_.-]+=)/)
    .map((part) => part.split(';')[0].trim())
    .filter((pair) => /^[A-Za-z0-9_.-]+=/.test(pair));
  return pairs.length ? pairs.join('; ') : undefined;
}

/** A number from a count the platforms print ("990K", "8,873", "1.2M"). */
export function parseCount(text: string | undefined | null): number | undefined {
  if (!text) return undefined;
  const match = /^([\d.,]+)\s*([KMB])?$/i.exec(text.trim());
  if (!match) return undefined;
  const scale = { K: 1e3, M: 1e6, B: 1e9 }[(match[2] ?? '').toUpperCase() as 'K' | 'M' | 'B'] ?? 1;
  const value = scale === 1 ? Number(match[1].replace(/[.,]/g, '')) : Number(match[1].replace(/,/g, '.'));
  return Number.isFinite(value) ? Math.round(value * scale) : undefined;
}

export function toNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** The first line of a post's text, as a title (platforms other than YouTube have none). */
export function titleFrom(text: string | null | undefined): string | null {
  const line = text?.split('\n').map((l) => l.trim()).find(Boolean);
  if (!line) return null;
  return line.length > 120 ? `${line.slice(0, 117).trimEnd()}...` : line;
}

export function hashtags(text: string | null | undefined): string[] {
  return [...new Set([...(text ?? '').matchAll(/(?:^|\s)#([\p{L}\p{N}_]+)/gu)].map((m) => m[1]))];
}
