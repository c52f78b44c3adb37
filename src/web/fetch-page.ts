/**
 * Fetching one page for scrape, map, crawl and metadata: the upstream status becomes a clear
 * error, and the body is classified as HTML, other text, or binary (which no web operation reads).
 */
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { pageHeaders } from '../net/identity.js';

export interface FetchedPage {
  /** Final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  kind: 'html' | 'text';
  text: string;
  headers: Record<string, string>;
}

export interface FetchPageOptions {
  signal?: AbortSignal;
  /** Called instead of following a redirect (the crawler decides itself, so no URL is fetched twice). */
  manualRedirects?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** The caller's preferred language (Accept-Language). */
  lang?: string;
}

/** Page bodies larger than this are refused (PAYLOAD_TOO_LARGE); real articles are far smaller. */
const PAGE_MAX_BYTES = 10 * 1024 * 1024;

const TEXT_TYPES = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml|javascript|ecmascript|x-javascript|ld\+json|x-ndjson|yaml|x-yaml|toml|csv|markdown|x-sh|rtf)\b|image\/svg\+xml)/i;
const HTML_TYPES = /^(?:text\/html|application\/xhtml\+xml)/i;

/** Binary or text from the bytes alone, for servers that send no usable Content-Type. */
function looksBinary(body: Buffer): boolean {
  const sample = body.subarray(0, 2048);
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  return control / sample.length > 0.1;
}

export function statusError(url: string, status: number): GleanerError {
  const host = new URL(url).host;
  if (status === 404 || status === 410) return new GleanerError('CONTENT_NOT_FOUND', `${url} does not exist (the site answered ${status}).`);
  if (status === 401 || status === 403 || status === 451) return new GleanerError('CONTENT_UNAVAILABLE', `${host} refused access to ${url} (status ${status}).`);
  if (status === 429) return new GleanerError('UPSTREAM_UNAVAILABLE', `${host} is rate limiting requests (status 429); try again later.`);
  return new GleanerError('UPSTREAM_ERROR', `${host} answered ${url} with status ${status}.`);
}

export class RedirectSignal {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {}
}

/** With manualRedirects, a 3xx comes back as a RedirectSignal carrying the absolute target. */
export async function fetchPage(http: HttpClient, url: string, options: FetchPageOptions & { manualRedirects: true }): Promise<FetchedPage | RedirectSignal>;
export async function fetchPage(http: HttpClient, url: string, options?: FetchPageOptions): Promise<FetchedPage>;
export async function fetchPage(http: HttpClient, url: string, options: FetchPageOptions = {}): Promise<FetchedPage | RedirectSignal> {
  const response = await http.fetch(url, {
    redirect: options.manualRedirects ? 'manual' : 'follow',
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes ?? PAGE_MAX_BYTES,
    headers: pageHeaders(options.lang),
  });
  if (response.status >= 400) throw statusError(response.url, response.status);
  if (options.manualRedirects && response.status >= 300 && response.headers.location) {
    return new RedirectSignal(response.url, new URL(response.headers.location, response.url).toString());
  }
  if (response.status >= 300) throw new GleanerError('UPSTREAM_ERROR', `${response.url} answered with a redirect (${response.status}) that has no location.`);
  const declared = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const text = TEXT_TYPES.test(declared) || (!declared || declared === 'application/octet-stream' ? !looksBinary(response.body) : false);
  if (!text) {
    throw new GleanerError(
      'UNSUPPORTED_CONTENT',
      `${response.url} is ${declared || 'binary content'}, not a web page or text; this operation reads HTML and text only.`,
    );
  }
  const body = response.text();
  const html = HTML_TYPES.test(declared) || (!TEXT_TYPES.test(declared) && /^\s*(?:<!doctype html|<html|<head|<body)/i.test(body.slice(0, 1024)));
  return {
    url: response.url,
    status: response.status,
    contentType: response.headers['content-type'] ?? (html ? 'text/html' : 'text/plain'),
    kind: html ? 'html' : 'text',
    text: body,
    headers: response.headers,
  };
}
