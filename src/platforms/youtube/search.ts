/**
 * YouTube search: the SearchFilter protobuf for the filters InnerTube knows, page after page
 * through continuations up to the caller's limit, and our own resumable page token.
 *
 * Filters YouTube cannot apply are applied to the results here, best effort, from what a result
 * shows: publishedAfter/publishedBefore (the upload-date filter narrows to the smallest window
 * YouTube offers; each result's relative age, "3 days ago", is then compared), definition=standard
 * (results with an HD/4K/8K badge are dropped) and caption=none (results with a CC badge are dropped).
 * Channels and playlists carry no date: a date filter drops them.
 */
import type { Innertube } from 'youtubei.js';
import { GleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import { callYoutube, innertube, loadYoutubei } from './client.js';
import { onFreshExits } from './clients.js';
import { resultItems, type ResultItem } from './items.js';

/** YouTube's search feature filters, by the names Supadata's API gives them. */
export const SEARCH_FEATURES = ['hd', 'subtitles', 'creative-commons', '3d', 'live', '4k', '360', 'location', 'hdr', 'vr180'] as const;
export type SearchFeature = (typeof SEARCH_FEATURES)[number];

export interface SearchOptions {
  query: string;
  /** movie: YouTube's films (their results are videos). */
  type: 'all' | 'video' | 'channel' | 'playlist' | 'movie';
  features?: SearchFeature[];
  duration?: 'short' | 'medium' | 'long';
  sortBy: 'relevance' | 'date' | 'viewCount' | 'rating';
  definition: 'any' | 'high' | 'standard';
  caption: 'any' | 'closedCaption' | 'none';
  publishedAfter?: string;
  publishedBefore?: string;
  limit: number;
  pageToken?: string;
}

export interface SearchReply {
  query: string;
  results: ResultItem[];
  nextPageToken: string | null;
  totalResults: number | null;
  /** YouTube result pages fetched for this reply. */
  pagesFetched: number;
}

/** What our page token holds: where the next result is (the page's request and an offset in it). */
interface PageToken {
  v: 1;
  q: string;
  /** SearchFilter params of the search. */
  p: string;
  /** The continuation that fetched the page; absent for the first page. */
  c?: string;
  /** Results of that page already returned. */
  o: number;
}

// SearchFilter protobuf (field numbers as InnerTube defines them).
const SORT = { relevance: 0, rating: 1, date: 2, viewCount: 3 } as const;
const TYPE = { all: 0, video: 1, channel: 2, playlist: 3, movie: 4 } as const;
/** Each feature is a boolean field of the filters message. */
const FEATURE_FIELD: Record<SearchFeature, number> = { hd: 4, subtitles: 5, 'creative-commons': 6, '3d': 7, live: 8, '4k': 14, '360': 15, location: 23, hdr: 25, vr180: 26 };
/** short: under 3 minutes, medium: 3 to 20, long: over 20 (YouTube's current duration filter). */
const DURATION = { short: 4, medium: 5, long: 2 } as const;
const UPLOAD = { hour: 1, today: 2, week: 3, month: 4, year: 5 } as const;

function varint(value: number): number[] {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return bytes;
}

function field(number: number, value: number): number[] {
  return [...varint(number << 3), ...varint(value)];
}

/** The smallest upload-date window YouTube offers that still holds everything after `after`. */
function uploadWindow(after: Date, now: Date): number | undefined {
  const age = now.getTime() - after.getTime();
  const hour = 3_600_000;
  if (age <= hour) return UPLOAD.hour;
  if (age <= 24 * hour) return UPLOAD.today;
  if (age <= 7 * 24 * hour) return UPLOAD.week;
  if (age <= 31 * 24 * hour) return UPLOAD.month;
  if (age <= 366 * 24 * hour) return UPLOAD.year;
  return undefined;
}

export function searchParams(options: Omit<SearchOptions, 'query' | 'limit' | 'pageToken'>, now = new Date()): string {
  const filters: number[] = [];
  const window = options.publishedAfter ? uploadWindow(new Date(options.publishedAfter), now) : undefined;
  if (window) filters.push(...field(1, window));
  if (options.type !== 'all') filters.push(...field(2, TYPE[options.type]));
  if (options.duration) filters.push(...field(3, DURATION[options.duration]));
  const features = new Set(options.features);
  if (options.definition === 'high') features.add('hd');
  if (options.caption === 'closedCaption') features.add('subtitles');
  for (const feature of [...features].sort((a, b) => FEATURE_FIELD[a] - FEATURE_FIELD[b])) filters.push(...field(FEATURE_FIELD[feature], 1));
  const bytes = [...(options.sortBy !== 'relevance' ? field(1, SORT[options.sortBy]) : []), ...varint((2 << 3) | 2), ...varint(filters.length), ...filters];
  return encodeURIComponent(Buffer.from(bytes).toString('base64'));
}

function encodeToken(token: PageToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeToken(text: string, query: string): PageToken {
  let token: PageToken;
  try {
    token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as PageToken;
  } catch {
    throw new GleanerError('INVALID_REQUEST', 'pageToken is not a token this server gave out (pass the nextPageToken of an earlier reply unchanged).');
  }
  if (token?.v !== 1 || typeof token.q !== 'string' || typeof token.p !== 'string' || typeof token.o !== 'number' || token.o < 0) {
    throw new GleanerError('INVALID_REQUEST', 'pageToken is not a token this server gave out (pass the nextPageToken of an earlier reply unchanged).');
  }
  if (token.q !== query) throw new GleanerError('INVALID_REQUEST', `pageToken belongs to the search "${token.q}", not "${query}".`);
  return token;
}

const UNITS: Record<string, number> = { second: 1e3, minute: 6e4, hour: 3.6e6, day: 8.64e7, week: 6.048e8, month: 2.628e9, year: 3.156e10 };

/** "3 days ago", "Streamed 2 weeks ago" as an approximate time; null when there is none. */
export function approximateDate(relative: string | null, now: Date): Date | null {
  const found = relative && /(\d+)\s+(second|minute|hour|day|week|month|year)s?\s+ago/i.exec(relative);
  if (!found) return null;
  return new Date(now.getTime() - Number(found[1]) * UNITS[found[2].toLowerCase()]);
}

function keep(item: ResultItem, options: SearchOptions, now: Date): boolean {
  if (options.publishedAfter || options.publishedBefore) {
    if (item.type !== 'video') return false;
    const when = approximateDate(item.publishedText, now);
    if (!when) return false;
    if (options.publishedAfter && when < new Date(options.publishedAfter)) return false;
    if (options.publishedBefore && when > new Date(options.publishedBefore)) return false;
  }
  if (item.type === 'video') {
    if (options.definition === 'standard' && item.badges.some((b) => /^(HD|4K|8K)$/i.test(b))) return false;
    if (options.caption === 'none' && item.badges.some((b) => /^(CC|Subtitles)$/i.test(b))) return false;
  }
  if (options.type !== 'all' && item.type !== (options.type === 'movie' ? 'video' : options.type)) return false;
  return true;
}

interface Page {
  items: ResultItem[];
  continuation?: string;
  estimated?: number;
}

async function fetchPage(http: HttpClient, yt: Innertube, query: string, params: string, continuation: string | undefined): Promise<Page> {
  const { YT, YTNodes } = await loadYoutubei();
  // A blocked exit (bot check, 429) moves YouTube's requests to the next proxy of the pool, as for transcripts.
  const search = await onFreshExits(http, () =>
    callYoutube(`the search for "${query}"`, async () => {
      const response = continuation
        ? await yt.actions.execute('/search', { continuation, parse: true })
        : await yt.actions.execute('/search', { query, params, parse: true });
      return new YT.Search(yt.actions, response, true);
    }),
  );
  const next = search.memo.getType(YTNodes.ContinuationItem).at(-1) as { endpoint?: { payload?: { token?: string } } } | undefined;
  return {
    items: search.results.flatMap((node) => resultItems(node)),
    continuation: next?.endpoint?.payload?.token,
    estimated: search.estimated_results || undefined,
  };
}

export async function youtubeSearch(http: HttpClient, options: SearchOptions, now = new Date()): Promise<SearchReply> {
  const yt = await innertube(http);
  const token = options.pageToken ? decodeToken(options.pageToken, options.query) : undefined;
  const params = token?.p ?? searchParams(options, now);
  let continuation = token?.c;
  let offset = token?.o ?? 0;
  const results: ResultItem[] = [];
  const seen = new Set<string>();
  let totalResults: number | null = null;
  let pagesFetched = 0;
  let nextPageToken: string | null = null;
  for (;;) {
    let page: Page;
    try {
      page = await fetchPage(http, yt, options.query, params, continuation);
    } catch (error) {
      // A later page that fails does not waste the results gathered: the token retries that page.
      if (results.length === 0) throw error;
      nextPageToken = encodeToken({ v: 1, q: options.query, p: params, ...(continuation ? { c: continuation } : {}), o: 0 });
      break;
    }
    pagesFetched++;
    if (totalResults === null && page.estimated !== undefined) totalResults = page.estimated;
    const kept = page.items.filter((item) => keep(item, options, now));
    let index = offset;
    for (; index < kept.length && results.length < options.limit; index++) {
      const item = kept[index];
      const key = `${item.type}:${item.id}`;
      // YouTube repeats a result now and then across pages; each is returned once per reply.
      if (seen.has(key)) continue;
      seen.add(key);
      results.push(item);
    }
    offset = 0;
    if (results.length >= options.limit) {
      if (index < kept.length) nextPageToken = encodeToken({ v: 1, q: options.query, p: params, ...(continuation ? { c: continuation } : {}), o: index });
      else if (page.continuation) nextPageToken = encodeToken({ v: 1, q: options.query, p: params, c: page.continuation, o: 0 });
      break;
    }
    if (!page.continuation || page.items.length === 0) break;
    continuation = page.continuation;
  }
  return { query: options.query, results, nextPageToken, totalResults, pagesFetched };
}
