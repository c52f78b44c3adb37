/**
 * Fetching platform pages the way a logged-out browser does: the platforms answer an unknown
 * client with a login wall or an empty shell, so the pages are asked for with a browser's headers.
 */
import type { FetchResponse, HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';

export const DESKTOP_HEADERS: Record<string, string> = {
  'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
};

export const MOBILE_HEADERS: Record<string, string> = {
  ...DESKTOP_HEADERS,
  'user-agent': 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};

/** GET a platform page or API; 404/410 is CONTENT_NOT_FOUND, 401/403/451 CONTENT_UNAVAILABLE, 429 UPSTREAM_BLOCKED, other errors UPSTREAM_ERROR. */
export async function fetchPlatform(
  http: HttpClient,
  url: string,
  what: string,
  options: { headers?: Record<string, string>; signal?: AbortSignal; method?: 'GET' | 'POST'; body?: string } = {},
): Promise<FetchResponse> {
  // The adapters' own requests to their platform: the operator's cookies for it may go along.
  const response = await http.fetch(url, { headers: options.headers ?? DESKTOP_HEADERS, signal: options.signal, method: options.method, body: options.body, credentials: true });
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
