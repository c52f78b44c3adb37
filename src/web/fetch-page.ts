/**
 * Fetching one page for scrape, map, crawl and metadata: the upstream status becomes a clear
 * error, and the body is classified as HTML, other text, a document read as a page (PDF, Word),
 * or other binary content (which no web operation reads).
 */
import type { HttpClient } from '../net/http.js';
import { GleanerError, isGleanerError } from '../errors.js';
import { documentTypeOf, type DocumentType } from './document-type.js';
import { looksLikeChallenge } from './render/shell.js';
import { pageHeaders } from '../net/identity.js';

export interface FetchedPage {
  /** Final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  kind: 'html' | 'text' | 'document';
  /** Empty for a document. */
  text: string;
  headers: Record<string, string>;
  /** A document's type and bytes (kind `document`). */
  document?: { type: DocumentType; bytes: Buffer };
}

export interface FetchPageOptions {
  signal?: AbortSignal;
  /** Called instead of following a redirect (the crawler decides itself, so no URL is fetched twice). */
  manualRedirects?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** The cap on a PDF or Word document (GLEANER_DOCUMENT_MAX_BYTES). */
  documentMaxBytes?: number;
  /** An error reply that is a JavaScript challenge comes back as the page (status >= 400), for a browser to pass. */
  keepChallenge?: boolean;
  /** The caller's preferred language (Accept-Language). */
  lang?: string;
}

/** Page bodies larger than this are refused (PAYLOAD_TOO_LARGE); real articles are far smaller. */
export const PAGE_MAX_BYTES = 10 * 1024 * 1024;
/** GLEANER_DOCUMENT_MAX_BYTES's default, for callers without the configuration at hand. */
const DOCUMENT_MAX_BYTES = 20 * 1024 * 1024;

export const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

function tooLarge(url: string, documentMaxBytes: number, cause?: unknown): GleanerError {
  return new GleanerError(
    'PAYLOAD_TOO_LARGE',
    `${url} is larger than Gleaner reads: ${megabytes(PAGE_MAX_BYTES)} for a web page, ${megabytes(documentMaxBytes)} for a PDF or Word document (GLEANER_DOCUMENT_MAX_BYTES).`,
    { cause },
  );
}

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
  const documentMaxBytes = options.documentMaxBytes ?? DOCUMENT_MAX_BYTES;
  // Which cap applies is known only once the body is in, so the larger one bounds the download.
  const response = await http.fetch(url, {
    redirect: options.manualRedirects ? 'manual' : 'follow',
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes ?? Math.max(PAGE_MAX_BYTES, documentMaxBytes),
    headers: pageHeaders(options.lang),
  }).catch((error: unknown) => {
    throw isGleanerError(error) && error.code === 'PAYLOAD_TOO_LARGE' && options.maxBytes === undefined ? tooLarge(url, documentMaxBytes, error) : error;
  });
  if (response.status >= 400 && !(options.keepChallenge && looksLikeChallenge(response.status, response.headers, response.text()))) {
    throw statusError(response.url, response.status);
  }
  if (options.manualRedirects && response.status >= 300 && response.headers.location) {
    return new RedirectSignal(response.url, new URL(response.headers.location, response.url).toString());
  }
  if (response.status >= 300 && response.status < 400) throw new GleanerError('UPSTREAM_ERROR', `${response.url} answered with a redirect (${response.status}) that has no location.`);
  const declared = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const documentType = documentTypeOf(declared, response.body);
  if (documentType) {
    if (response.body.length > documentMaxBytes) throw tooLarge(response.url, documentMaxBytes);
    return {
      url: response.url,
      status: response.status,
      contentType: response.headers['content-type'] ?? (documentType === 'pdf' ? 'application/pdf' : 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
      kind: 'document',
      text: '',
      headers: response.headers,
      document: { type: documentType, bytes: response.body },
    };
  }
  if (options.maxBytes === undefined && response.body.length > PAGE_MAX_BYTES) throw tooLarge(response.url, documentMaxBytes);
  const text = TEXT_TYPES.test(declared) || (!declared || declared === 'application/octet-stream' ? !looksBinary(response.body) : false);
  if (!text) {
    throw new GleanerError(
      'UNSUPPORTED_CONTENT',
      `${response.url} is ${declared || 'binary content'}, not a web page or text; this operation reads web pages, text, PDF and Word (.docx) documents only.`,
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
